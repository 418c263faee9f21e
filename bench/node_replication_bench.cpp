// Replication throughput between two carriers on this machine, each a real
// carrierd with its own redis-server: contact changes per second from A's
// store to B's pending mailboxes. Books (one per person; 1,000 cards for bulk
// sync, 1 card for the many small entries of interactive edits) are
// stored at A while A's carrierd is down (so its outbox holds them all); the
// clock runs from starting A's carrierd until B has acknowledged everything,
// i.e. until A's outbox is empty (B acks only after its script stored the
// changes and filled the mailboxes). Checked afterwards: every line at B has
// exactly the book pending.
#include "actors/actors.hpp"
#include "bench/sample_book.hpp"
#include "store/account_store.hpp"
#include "store/outbox.hpp"
#include "tests/support/carrier_process.hpp"
#include "tests/support/test_keyring.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

using namespace simsync;

namespace {

std::string idcode_of(int person) {
  char buf[65];
  std::snprintf(buf, sizeof buf, "%08x%056x", static_cast<unsigned>(person * 2654435761u),
                static_cast<unsigned>(person));
  return buf;
}

bool wait_until_empty(store::redis_client& redis, const std::string& peer,
                      std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    auto depth = store::outbox_depth(redis, peer);
    if (depth && *depth == 0)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }
  return false;
}

void BM_replication(benchmark::State& state) {
  const int persons = static_cast<int>(state.range(0));
  const int cards = static_cast<int>(state.range(2));
  auto book = bench::sample_book(cards);
  for (auto _ : state) {
    testing::deployment::options opts;
    opts.shards = 4;
    opts.metrics = state.range(1) != 0;
    testing::deployment d({"carrier-a", "carrier-b"}, opts);
    auto a = d.redis("carrier-a").connect();
    auto b = d.redis("carrier-b").connect();
    store::account_store at_a(a, "carrier-a", simsync::testing::test_keyring());
    store::account_store at_b(b, "carrier-b", simsync::testing::test_keyring());
    // Register everyone on both sides; the carrierds ask and answer.
    for (int p = 0; p < persons; ++p) {
      auto id = idcode_of(p);
      at_a.register_line({id,
                          "+861380000" + std::to_string(p),
                          "898601",
                          "h",
                          "s",
                          1,
                          {"carrier-b"},
                          "m"});
      at_b.register_line({id,
                          "+861860000" + std::to_string(p),
                          "898601",
                          "h",
                          "s",
                          1,
                          {"carrier-a"},
                          "m"});
    }
    if (!wait_until_empty(a, "carrier-b", std::chrono::seconds{60}) ||
        !wait_until_empty(b, "carrier-a", std::chrono::seconds{60})) {
      state.SkipWithError("siblings did not settle");
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{200}); // answers to answers
    wait_until_empty(a, "carrier-b", std::chrono::seconds{60});
    d.stop("carrier-a", SIGTERM);
    for (int p = 0; p < persons; ++p) {
      store::upload_request req;
      req.idcode = idcode_of(p);
      req.line = "+861380000" + std::to_string(p);
      req.token_hash = "h"; // what the registration stored
      req.cards = book;
      req.now_ms = 1'700'000'000'000;
      at_a.upload(req);
    }
    auto start = std::chrono::steady_clock::now();
    d.start("carrier-a");
    bool drained = wait_until_empty(a, "carrier-b", std::chrono::seconds{120});
    auto seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(seconds);
    if (!drained) {
      state.SkipWithError("A's outbox did not drain");
      break;
    }
    for (int p = 0; p < persons; ++p) {
      auto counts =
          at_b.request_update(idcode_of(p), "+861860000" + std::to_string(p), "h");
      if (!counts || counts->added != static_cast<std::size_t>(cards)) {
        state.SkipWithError("a line at B does not hold exactly the book");
        return;
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * persons * cards);
}

} // namespace

// Args: persons, metrics on (1) or off (0), cards per person. The first pair
// measures what the actors' timers and the introspector cost; the last has
// one small outbox entry per person, where the cost per entry (messages,
// script calls) dominates rather than the cost per card.
BENCHMARK(BM_replication)
    ->ArgNames({"persons", "metrics", "cards"})
    ->Args({100, 1, 1000})
    ->Args({100, 0, 1000})
    ->Args({2000, 1, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
