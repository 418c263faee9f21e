// What the machine charges a node for the things an edit does besides its
// own work: a system call, a thread put to sleep and woken by another, a
// page of memory touched for the first time. On the virtual machines of
// docs/performance.md each costs several times what it does on a physical
// one, and below saturation an edit's CPU is mostly its threads' wake-ups
// ("thread_wakes_per_change" of the load tool), so these say what one
// costs in the hour a run is made.
//
// "process_cpu_us" is the CPU of the process (both threads, where there are
// two) per iteration, or per page for the page benchmarks; the time columns
// are per iteration, the calling thread's alone.
//
// Run: machine_costs_bench --benchmark_repetitions=3
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <ctime>
#include <stdexcept>
#include <thread>

namespace {

double process_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

/// Sets "process_cpu_us" since `started`, per iteration over `per`.
void count_cpu(benchmark::State& state, double started, double per = 1) {
  state.counters["process_cpu_us"] = benchmark::Counter(
      (process_cpu_us() - started) / per, benchmark::Counter::kAvgIterations);
}

/// A system call that does nothing but enter the kernel and return.
void system_call(benchmark::State& state) {
  auto started = process_cpu_us();
  for (auto _ : state)
    benchmark::DoNotOptimize(syscall(SYS_getppid));
  count_cpu(state, started);
}
BENCHMARK(system_call);

/// What an event loop pays to look for work when there is none.
void epoll_wait_none_ready(benchmark::State& state) {
  int ep = epoll_create1(0);
  if (ep < 0)
    throw std::runtime_error("epoll_create1 failed");
  std::array<epoll_event, 8> events{};
  auto started = process_cpu_us();
  for (auto _ : state)
    benchmark::DoNotOptimize(
        epoll_wait(ep, events.data(), static_cast<int>(events.size()), 0));
  count_cpu(state, started);
  close(ep);
}
BENCHMARK(epoll_wait_none_ready);

/// One byte to another thread and back through two pipes: the other thread
/// sleeps until the byte comes, and so does this one until the answer
/// comes, two wake-ups per iteration (as a message to an actor on a thread
/// of its own and its reply). Under `taskset -c 0` both threads share one
/// core and neither wake-up crosses cores.
void thread_wake_round_trip(benchmark::State& state) {
  std::array<int, 2> to{}, back{};
  if (pipe(to.data()) != 0 || pipe(back.data()) != 0)
    throw std::runtime_error("pipe failed");
  std::thread other([&] {
    char byte = 0;
    while (read(to[0], &byte, 1) == 1 && byte != 0)
      if (write(back[1], &byte, 1) != 1)
        break;
  });
  char byte = 1;
  auto started = process_cpu_us();
  for (auto _ : state) {
    if (write(to[1], &byte, 1) != 1 || read(back[0], &byte, 1) != 1) {
      state.SkipWithError("pipe broke");
      break;
    }
  }
  count_cpu(state, started);
  byte = 0;
  if (write(to[1], &byte, 1) != 1)
    state.SkipWithError("pipe broke");
  other.join();
  for (int fd : {to[0], to[1], back[0], back[1]})
    close(fd);
}
BENCHMARK(thread_wake_round_trip)->UseRealTime();

constexpr std::size_t page_bytes = 4096;
constexpr std::size_t pages = 256; // 1 MiB

/// Pages the kernel has just given (a fresh anonymous mapping), written one
/// byte each: the kernel zeroes and maps each at its first touch.
void first_touch_page(benchmark::State& state) {
  auto started = process_cpu_us();
  for (auto _ : state) {
    void* at = mmap(nullptr, pages * page_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      break;
    }
    auto* bytes = static_cast<volatile char*>(at);
    for (std::size_t i = 0; i < pages; ++i)
      bytes[i * page_bytes] = 1;
    munmap(at, pages * page_bytes);
  }
  count_cpu(state, started, pages);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pages));
}
BENCHMARK(first_touch_page);

/// The same pages written again once held: what a node pays for memory it
/// keeps (tools/carrierd.cpp, keep_freed_memory).
void held_page(benchmark::State& state) {
  void* at = mmap(nullptr, pages * page_bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED)
    throw std::runtime_error("mmap failed");
  auto* bytes = static_cast<volatile char*>(at);
  for (std::size_t i = 0; i < pages; ++i)
    bytes[i * page_bytes] = 1;
  auto started = process_cpu_us();
  for (auto _ : state)
    for (std::size_t i = 0; i < pages; ++i)
      bytes[i * page_bytes] = 2;
  count_cpu(state, started, pages);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pages));
  munmap(at, pages * page_bytes);
}
BENCHMARK(held_page);

} // namespace

BENCHMARK_MAIN();
