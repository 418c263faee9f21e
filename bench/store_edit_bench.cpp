// One-card edits into a real redis-server, as a phone's interactive edit
// reaches the store at each carrier: at the origin a delta upload of one card
// (store::account_store::upload), at a sibling the one-change batch the
// origin's peer link delivers (apply_incoming). Each account has two lines,
// so an edit also fills the other line's pending mailbox; at the origin it has
// one sibling carrier, so an edit also writes an outbox entry. The book
// already holds range(0) cards. Counters, from the server itself so that they
// leave out this client and the loopback: Redis's CPU per edit (INFO cpu,
// main thread), the time of the script call (INFO commandstats) and the
// commands the script ran per edit.
#include "bench/sample_book.hpp"
#include "core/record.hpp"
#include "store/account_store.hpp"
#include "store/netstrings.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/test_keyring.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>

using namespace simsync;

namespace {

const std::string account_id = "edit-bench";

/// The server's counters over the timed loop.
class server_counters {
public:
  explicit server_counters(store::redis_client& client) : client_(client) {
    client_.call({"CONFIG", "RESETSTAT"});
    cpu_before_ = cpu_seconds();
  }

  void report(benchmark::State& state) {
    auto edits = static_cast<double>(state.iterations());
    if (edits == 0)
      return;
    state.counters["redis_cpu_us_per_edit"] = (cpu_seconds() - cpu_before_) * 1e6 / edits;
    // Every command but the script call and this benchmark's INFO and CONFIG.
    double inner = 0;
    for_each_stat([&](std::string_view name, double calls, double usec_per_call) {
      if (name == "fcall")
        state.counters["fcall_us"] = usec_per_call;
      else if (name != "info" && name.substr(0, 6) != "config")
        inner += calls;
    });
    state.counters["commands_per_edit"] = inner / edits;
  }

private:
  double info_number(const char* section, std::string_view name) {
    auto reply = client_.call({"INFO", section});
    std::string text(reply ? reply->view().str() : "");
    auto at = text.find(std::string(name) + ":");
    return at == std::string::npos ? 0 : std::stod(text.substr(at + name.size() + 1));
  }
  double cpu_seconds() {
    return info_number("cpu", "used_cpu_sys_main_thread") +
           info_number("cpu", "used_cpu_user_main_thread");
  }
  /// Each "cmdstat_<name>:calls=N,usec=U,usec_per_call=P,..." line of INFO.
  void for_each_stat(const std::function<void(std::string_view, double, double)>& f) {
    auto reply = client_.call({"INFO", "commandstats"});
    std::istringstream lines(std::string(reply ? reply->view().str() : ""));
    for (std::string l; std::getline(lines, l);) {
      auto colon = l.find(':');
      auto calls = l.find("calls=");
      auto per = l.find("usec_per_call=");
      if (l.rfind("cmdstat_", 0) != 0 || colon == std::string::npos ||
          calls == std::string::npos || per == std::string::npos)
        continue;
      f(std::string_view(l).substr(8, colon - 8), std::stod(l.substr(calls + 6)),
        std::stod(l.substr(per + 14)));
    }
  }

  store::redis_client& client_;
  double cpu_before_ = 0;
};

/// An account of two lines at `s`, whose book holds `cards` cards, uploaded
/// by line 1 at once, or `per_upload` at a time (each upload one history
/// entry of its additions, as each request of a book a sibling is sent).
void make_account(store::account_store& s, const std::string& peer, int cards,
                  std::uint64_t& now_ms, std::size_t per_upload = 0) {
  s.register_line({account_id, "line-1", "898601", "h", "sealed", now_ms, {}, "m"});
  s.register_line({account_id, "line-2", "898602", "h2", "sealed", now_ms, {}, "m"});
  s.apply_incoming(peer, {{"0-1", account_id, store::outbox_kind::ask, {}}});
  if (cards == 0)
    return;
  store::upload_request req;
  req.idcode = account_id;
  req.line = "line-1";
  req.token_hash = "h";
  auto book = bench::sample_book(cards, "start");
  if (per_upload == 0 || per_upload >= book.size()) {
    req.cards = std::move(book);
    req.now_ms = ++now_ms;
    if (!s.upload(req))
      throw std::runtime_error("the book's first upload failed");
    return;
  }
  req.mode = store::upload_mode::delta;
  for (std::size_t from = 0; from < book.size(); from += per_upload) {
    auto to = std::min(book.size(), from + per_upload);
    req.cards.assign(book.begin() + static_cast<std::ptrdiff_t>(from),
                     book.begin() + static_cast<std::ptrdiff_t>(to));
    req.now_ms = ++now_ms;
    if (!s.upload(req))
      throw std::runtime_error("a part of the book's upload failed");
  }
}

/// A real redis-server with one account of two lines at `carrier`, whose
/// sibling is `peer` and whose book holds `cards` cards.
struct bench_account {
  bench_account(const char* carrier, const std::string& peer, std::int64_t cards,
                std::int64_t per_upload = 0)
      : client(server.connect()),
        store(client, carrier, simsync::testing::test_keyring()) {
    make_account(store, peer, static_cast<int>(cards), now_ms,
                 static_cast<std::size_t>(per_upload));
  }

  testing::redis_server server;
  store::redis_client client;
  store::account_store store;
  std::uint64_t now_ms = 1'700'000'000'000;
};

/// The cards the edits write: 50 contacts edited over and over.
std::vector<core::book_entry> edit_cards() {
  auto cards = bench::sample_book(1000, "edit");
  for (std::size_t i = 0; i < cards.size(); ++i)
    cards[i].uid = "uid-" + std::to_string(i % 50);
  return cards;
}

void BM_origin_upload(benchmark::State& state) {
  bench_account at("carrier-a", "carrier-b", state.range(0));
  auto cards = edit_cards();
  store::upload_request req;
  req.idcode = account_id;
  req.line = "line-1";
  req.token_hash = "h";
  req.mode = store::upload_mode::delta;
  server_counters counters(at.client);
  std::size_t n = 0;
  for (auto _ : state) {
    req.cards = {cards[n++ % cards.size()]};
    req.now_ms = ++at.now_ms;
    auto r = at.store.upload(req);
    if (!r || r->added + r->changed != 1) {
      state.SkipWithError("an edit was not stored");
      return;
    }
  }
  counters.report(state);
}

/// The edit `n` of edit_cards() as carrier-a's link delivers it to `at`.
bool apply_edit(bench_account& at, const std::vector<core::book_entry>& cards,
                std::size_t n) {
  const auto& card = cards[n % cards.size()];
  core::stamped_card rec{{++at.now_ms * core::hlc_logical_per_ms, "carrier-a", "line-a"},
                         false,
                         card.hash,
                         card.card,
                         {}};
  std::string batch;
  store::append_netstring(batch, card.uid);
  store::append_netstring(batch, core::encode_record(rec));
  auto r = at.store.apply_incoming("carrier-a", {{std::to_string(n) + "-0", account_id,
                                                  store::outbox_kind::batch, batch}});
  return r && r->applied == 1;
}

void BM_sibling_apply(benchmark::State& state) {
  bench_account at("carrier-b", "carrier-a", state.range(0));
  auto cards = edit_cards();
  server_counters counters(at.client);
  std::size_t n = 0;
  for (auto _ : state) {
    if (!apply_edit(at, cards, n++)) {
      state.SkipWithError("a change was not applied");
      return;
    }
  }
  counters.report(state);
}

/// Makes the next update request of line-2 count its mailbox again, as any
/// change to the account would.
void forget_counts(bench_account& at) {
  at.client.call({"HDEL", "line:{" + account_id + "}:line-2", "counted_tag"});
}

/// A sibling line's update request (what a phone asks before it fetches)
/// after range(0) one-card edits to 50 contacts of a 300-card book that the
/// line has neither fetched nor acknowledged, counted anew each time (as
/// after any change to the account): what a phone that keeps asking and
/// never takes its changes costs its carrier's Redis per request.
void BM_update_after_edits(benchmark::State& state) {
  bench_account at("carrier-b", "carrier-a", 300);
  auto cards = edit_cards();
  for (std::int64_t n = 0; n < state.range(0); ++n)
    if (!apply_edit(at, cards, static_cast<std::size_t>(n))) {
      state.SkipWithError("a change was not applied");
      return;
    }
  server_counters counters(at.client);
  for (auto _ : state) {
    forget_counts(at);
    auto r = at.store.request_update(account_id, "line-2", "h2");
    if (!r || r->added + r->changed == 0) {
      state.SkipWithError("the line's mailbox was empty");
      return;
    }
  }
  counters.report(state);
}

/// A line's update request while its carrier holds a book of range(0) cards
/// that it has not fetched yet (a new line's first): what each poll of a
/// phone that does not take its book costs its carrier's Redis, counted anew
/// each time (range(1) = 1, as after any change to the account) or not.
void BM_update_of_a_book_not_taken(benchmark::State& state) {
  bench_account at("carrier-b", "carrier-a", state.range(0));
  server_counters counters(at.client);
  for (auto _ : state) {
    if (state.range(1) == 1)
      forget_counts(at);
    auto r = at.store.request_update(account_id, "line-2", "h2");
    if (!r || r->added != static_cast<std::size_t>(state.range(0))) {
      state.SkipWithError("the line's mailbox did not hold the book");
      return;
    }
  }
  counters.report(state);
}

/// The first page (1,000 changes, as the gateway asks) of a line's fetch of
/// a book of range(0) cards it has not taken, right after its update request
/// counted it (as a phone asks): the longest call a sibling's Redis made for
/// a large book. The book was stored range(1) cards at a time (0: at once),
/// so its history holds an entry per part, as a sibling's does: 1,000 cards
/// an entry when sent in requests of 512 KiB. The update request is not
/// timed.
void BM_first_page_of_a_book_not_taken(benchmark::State& state) {
  bench_account at("carrier-b", "carrier-a", state.range(0), state.range(1));
  server_counters counters(at.client);
  store::pending_request first{account_id, "line-2", "h2", 1000, "", ""};
  for (auto _ : state) {
    state.PauseTiming();
    auto counted = at.store.request_update(account_id, "line-2", "h2");
    state.ResumeTiming();
    auto page = at.store.fetch_page(first);
    if (!counted || !page || page->changes.size() != 1000 ||
        page->counts.added != static_cast<std::size_t>(state.range(0))) {
      state.SkipWithError("the first page did not hold 1,000 of the book's cards");
      return;
    }
  }
  counters.report(state);
}

} // namespace

BENCHMARK(BM_origin_upload)
    ->Arg(0)
    ->Arg(300)
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_sibling_apply)
    ->Arg(0)
    ->Arg(300)
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

BENCHMARK(BM_first_page_of_a_book_not_taken)
    ->Args({50000, 0})
    ->Args({50000, 1000})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_update_of_a_book_not_taken)
    ->Args({1000, 1})
    ->Args({1000, 0})
    ->Args({50000, 1})
    ->Args({50000, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_update_after_edits)
    ->Arg(10)
    ->Arg(1000)
    ->Arg(9000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

BENCHMARK_MAIN();
