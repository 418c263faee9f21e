// Shared upload of a 500- or 1,000-card book through store::account_store into a real
// redis-server: cards per second and Redis round trips per upload. The
// account has two lines and one sibling carrier, so every upload also fills a
// pending mailbox and writes an outbox entry, as in production.
#include "bench/sample_book.hpp"
#include "store/account_store.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/test_keyring.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

using namespace simsync;

namespace {

void shared_upload(benchmark::State& state, store::upload_mode mode) {
  const int cards = static_cast<int>(state.range(0));
  testing::redis_server server;
  auto client = server.connect();
  store::account_store s(client, "carrier-a", simsync::testing::test_keyring());
  // Two books that differ in every card: each upload changes all of them.
  std::vector<std::vector<core::book_entry>> books{bench::sample_book(cards, "a"),
                                                   bench::sample_book(cards, "b")};
  int account = 0;
  std::uint64_t trips = 0;
  std::uint64_t uploads = 0;
  std::uint64_t now_ms = 1'700'000'000'000;
  for (auto _ : state) {
    state.PauseTiming();
    // A fresh account each time: the upload adds every card (the first sync).
    auto id = std::to_string(account++);
    for (const char* line : {"+8613800138000", "+8613900139000"})
      s.register_line({id, line + id, "898601", "h", "sealed", now_ms, {}, "m"});
    s.apply_incoming("carrier-b", {{"0-1", id, store::outbox_kind::ask, {}}});
    store::upload_request req;
    req.idcode = id;
    req.line = "+8613800138000" + id;
    req.token_hash = "h"; // what the registration stored
    req.mode = mode;
    req.cards = books[account % 2];
    req.now_ms = ++now_ms;
    auto before = client.round_trips();
    state.ResumeTiming();
    auto r = s.upload(req);
    if (!r || r->added != static_cast<std::size_t>(cards)) {
      state.SkipWithError("upload failed or did not add every card");
      break;
    }
    trips += client.round_trips() - before;
    ++uploads;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * cards);
  state.counters["round_trips_per_upload"] =
      uploads ? static_cast<double>(trips) / static_cast<double>(uploads) : 0;
}

void BM_shared_upload_snapshot(benchmark::State& state) {
  shared_upload(state, store::upload_mode::snapshot);
}

} // namespace

BENCHMARK(BM_shared_upload_snapshot)
    ->Arg(500)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
