// Shared upload of a 500- or 1,000-card book through store::account_store into a real
// redis-server: cards per second and Redis round trips per upload. The
// account has two lines and one sibling carrier, so every upload also fills a
// pending mailbox and writes an outbox entry, as in production. And the same
// book as a sibling carrier applies it: one outbox entry of its cards, new to
// an account of one line; and that line taking it (counts, pages, ack). And
// a 50,000-card book sent in parts, new, again or again less a card, shared
// or private.
#include "bench/sample_book.hpp"
#include "core/record.hpp"
#include "store/account_store.hpp"
#include "store/netstrings.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/test_keyring.hpp"
#include "tests/support/upload_in_parts.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
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

/// A book of state.range(0) cards sent as the gateway sends a large one
/// (store::upload_plan: compares; scans and a prune if it leaves cards out;
/// then deltas without the cards the line holds), to a line's shared store
/// (range(1) 0) or private backup (1): a new line's first book (range(2) 0),
/// the same book sent again (1, the first not timed), or sent again less its
/// last card (2: the scans and the prune go). Calls per book as a counter.
void BM_book_in_parts(benchmark::State& state) {
  const int cards = static_cast<int>(state.range(0));
  const auto where = state.range(1) ? store::scope::private_backup : store::scope::shared;
  const bool resync = state.range(2) != 0;
  const bool leave_one_out = state.range(2) == 2;
  testing::redis_server server;
  auto client = server.connect();
  store::account_store s(client, "carrier-a", simsync::testing::test_keyring());
  const auto book = bench::sample_book(cards, "a");
  int account = 0;
  std::uint64_t now_ms = 1'700'000'000'000;
  std::size_t calls = 0;
  // What the timed upload sends and should store: the book, or all of it but
  // its last card (which it removes).
  auto sent = book;
  if (leave_one_out)
    sent.pop_back();
  auto send = [&](const std::string& id, const std::vector<core::book_entry>& cards_sent,
                  std::size_t* counted) {
    store::upload_request req;
    req.idcode = id;
    req.line = "+8613800138000" + id;
    req.token_hash = "h";
    req.scope = where;
    req.mode = store::upload_mode::snapshot;
    req.cards = cards_sent;
    req.now_ms = ++now_ms;
    auto sum = testing::upload_in_parts(s, std::move(req), {}, counted);
    return sum && sum->added + sum->unchanged == cards_sent.size() &&
           sum->removed == book.size() - cards_sent.size();
  };
  for (auto _ : state) {
    state.PauseTiming();
    auto id = std::to_string(account++);
    s.register_line(
        {id, "+8613800138000" + id, "898601", "h", "sealed", now_ms, {}, "m"});
    if (resync && !send(id, book, nullptr)) {
      state.SkipWithError("the first book was not stored");
      break;
    }
    state.ResumeTiming();
    if (!send(id, sent, &calls)) {
      state.SkipWithError("the book was not stored whole");
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * cards);
  state.counters["calls_per_book"] =
      state.iterations()
          ? static_cast<double>(calls) / static_cast<double>(state.iterations())
          : 0;
  // One more book, untimed, with Redis's slow log taking every call: its
  // longest call, which every other line of that Redis waits behind.
  auto id = std::to_string(account++);
  s.register_line({id, "+8613800138000" + id, "898601", "h", "sealed", now_ms, {}, "m"});
  if (resync)
    send(id, book, nullptr);
  client.call({"CONFIG", "SET", "slowlog-max-len", "100000"});
  client.call({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  client.call({"SLOWLOG", "RESET"});
  send(id, sent, nullptr);
  auto log = client.call({"SLOWLOG", "GET", "100000"});
  client.call({"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
  double longest_us = 0;
  for (std::size_t i = 0; log && i < log->view().size(); ++i) {
    auto entry = log->view()[i];
    auto args = entry[3];
    if (args.size() >= 2 && args[1].str().substr(0, 7) == "upload_")
      longest_us = std::max(longest_us, static_cast<double>(entry[2].integer()));
  }
  state.counters["longest_call_ms"] = longest_us / 1000;
}

/// The outbox entry carrier-a's link delivers for a book of `cards` cards:
/// its records, stamped there at `now_ms`, as uid and record netstrings.
std::string book_batch(int cards, std::uint64_t now_ms) {
  std::string batch;
  for (const auto& card : bench::sample_book(cards, "a")) {
    core::stamped_card rec{{now_ms * core::hlc_logical_per_ms, "carrier-a", "line-a"},
                           false,
                           card.hash,
                           card.card,
                           {}};
    store::append_netstring(batch, card.uid);
    store::append_netstring(batch, core::encode_record(rec));
  }
  return batch;
}

/// carrier-b's store, where carrier-a's link delivers a book of `cards`
/// cards (book_batch) to a new account of one line each time.
struct sibling_carrier {
  explicit sibling_carrier(int cards) : batch(book_batch(cards, now_ms)) {}

  /// A new account of one line, known to carrier-a (an ask): its idcode.
  std::string new_account() {
    auto id = std::to_string(accounts++);
    s.register_line({id, line_of(id), "898601", "h", "sealed", now_ms, {}, "m"});
    s.apply_incoming("carrier-a", {{"0-1", id, store::outbox_kind::ask, {}}});
    return id;
  }
  static std::string line_of(const std::string& id) { return "+8618600186000" + id; }
  caf::expected<store::replicate_result> apply_book(const std::string& id) {
    return s.apply_incoming("carrier-a", {{"1-1", id, store::outbox_kind::batch, batch}});
  }

  testing::redis_server server;
  store::redis_client client = server.connect();
  store::account_store s{client, "carrier-b", simsync::testing::test_keyring()};
  std::uint64_t now_ms = 1'700'000'000'000;
  std::string batch;
  int accounts = 0;
};

void BM_sibling_apply_book(benchmark::State& state) {
  const int cards = static_cast<int>(state.range(0));
  sibling_carrier b(cards);
  for (auto _ : state) {
    state.PauseTiming();
    auto id = b.new_account();
    state.ResumeTiming();
    auto r = b.apply_book(id);
    if (!r || r->applied != static_cast<std::size_t>(cards)) {
      state.SkipWithError("the book was not applied whole");
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * cards);
}

/// A sibling's line taking a book the link applied, as a phone does: its
/// counts (an update request), the change set in pages of 1,000 (as the
/// gateway asks for a fetch without a limit), then the ack. Time per phase,
/// in ms per book (counters); the applied book's setup is not timed.
void BM_sibling_take_book(benchmark::State& state) {
  const int cards = static_cast<int>(state.range(0));
  sibling_carrier b(cards);
  auto& s = b.s;
  using clock = std::chrono::steady_clock;
  clock::duration counting{}, fetching{}, acking{};
  for (auto _ : state) {
    state.PauseTiming();
    auto id = b.new_account();
    auto line = sibling_carrier::line_of(id);
    b.apply_book(id);
    state.ResumeTiming();
    auto t0 = clock::now();
    auto counts = s.request_update(id, line, "h");
    auto t1 = clock::now();
    std::size_t taken = 0;
    store::pending_request page{id, line, "h", 1000, "", ""};
    std::string cursor;
    do {
      auto f = s.fetch_page(page);
      if (!f)
        break;
      taken += f->changes.size();
      cursor = f->cursor;
      page.next = f->next;
    } while (!page.next.empty());
    auto t2 = clock::now();
    auto acked = s.ack_pending(id, line, "h", cursor, store::decision::apply);
    auto t3 = clock::now();
    if (!counts || counts->added != static_cast<std::size_t>(cards) ||
        taken != static_cast<std::size_t>(cards) || !acked ||
        *acked != static_cast<std::size_t>(cards)) {
      state.SkipWithError("the line did not take the whole book");
      break;
    }
    counting += t1 - t0;
    fetching += t2 - t1;
    acking += t3 - t2;
  }
  auto ms_per_book = [&](clock::duration d) {
    return state.iterations() ? std::chrono::duration<double, std::milli>(d).count() /
                                    static_cast<double>(state.iterations())
                              : 0.0;
  };
  state.counters["update_ms"] = ms_per_book(counting);
  state.counters["fetch_ms"] = ms_per_book(fetching);
  state.counters["ack_ms"] = ms_per_book(acking);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * cards);
}

} // namespace

BENCHMARK(BM_sibling_take_book)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_book_in_parts)
    ->Args({500, 0, 0})
    ->Args({500, 0, 1})
    ->Args({50000, 0, 0})
    ->Args({50000, 0, 1})
    ->Args({50000, 0, 2})
    ->Args({50000, 1, 0})
    ->Args({50000, 1, 1})
    ->Args({50000, 1, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_sibling_apply_book)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_shared_upload_snapshot)
    ->Arg(500)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
