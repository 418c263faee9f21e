set terminal pngcairo size 900,560 font 'sans,10'
set output 'docs/performance-interactive-e.png'
set title 'simsync interactive edits: latency to the sibling mailbox (open loop)'
set xlabel 'offered edits/s'
set ylabel 'latency (ms)'
set logscale y
set grid
set key top left
plot 'docs/performance-interactive-e.png.dat' using 1:2 with linespoints title 'p50', \
     'docs/performance-interactive-e.png.dat' using 1:3 with linespoints title 'p99', \
     'docs/performance-interactive-e.png.dat' using 1:4 with linespoints title 'p99.9', \
     25 with lines dashtype 2 title 'p99 target (25 ms)'
