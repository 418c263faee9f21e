// Diff of a 50,000-card snapshot against a 50,000-card base (target: < 50 ms).
// Run: core_diff_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include "core/book_diff.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace {

using namespace simsync::core;

/// A book of `n` cards, and a base that differs from it in a realistic way:
/// 1% of cards added, 1% changed and 1% removed since the base was taken.
struct fixture {
  std::vector<book_entry> snapshot;
  book_base base;

  explicit fixture(std::size_t n) {
    snapshot.reserve(n);
    base.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::string uid =
          "urn:uuid:5f0c8a1e-0000-4000-8000-" + std::to_string(100000000000 + i);
      std::string card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:Contact " +
                         std::to_string(i) + "\r\nTEL:+86138" +
                         std::to_string(10000000 + i) + "\r\nEND:VCARD\r\n";
      auto hash = content_hash::of(card);
      if (i % 100 == 1)
        base[uid] = content_hash::of(card + "old");
      else if (i % 100 != 2)
        base[uid] = hash;
      if (i % 100 == 3)
        base["removed-" + uid] = hash;
      snapshot.push_back(book_entry{std::move(uid), hash, std::move(card)});
    }
  }
};

void bm_diff_book(benchmark::State& state) {
  fixture f(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto d = diff_book(f.snapshot, f.base);
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(bm_diff_book)->Arg(50000)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
