// Large book: one person pushes a book of 50,000 cards (PUT), timed until
// the sibling line's mailbox holds all of it; the sibling applies it
// (untimed); then a delta of 100 edited cards (one POST), each edit timed
// until it is in the sibling's mailbox. With Redis addresses it also
// measures the Redis bytes each stored card costs (INFO memory before and
// after, MEMORY USAGE of the shared store), against the vCard's own size.

#include "load/progress.hpp"
#include "load/scenarios/scenario.hpp"
#include "store/keys.hpp"
#include "store/redis_client.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

namespace simsync::load {

namespace {

/// used_memory of every Redis of a carrier, summed; -1 without Redis.
long long used_memory(const deployment& d, const std::string& carrier) {
  const auto* c = d.find(carrier);
  if (!c || c->redis.empty())
    return -1;
  long long total = 0;
  for (std::size_t i = 0; i < c->redis.size(); ++i) {
    auto client = store::redis_client::connect(redis_endpoint_of(*c, i));
    if (!client)
      return -1;
    auto info = client->call({"INFO", "memory"});
    if (!info)
      return -1;
    auto text = std::string(info->view().str());
    auto at = text.find("used_memory:");
    if (at == std::string::npos)
      return -1;
    total += std::stoll(text.substr(at + 12));
  }
  return total;
}

/// MEMORY USAGE of a key, from whichever Redis of the carrier holds it; -1 if none.
long long memory_usage(const deployment& d, const std::string& carrier,
                       const std::string& key) {
  const auto* c = d.find(carrier);
  if (!c)
    return -1;
  for (std::size_t i = 0; i < c->redis.size(); ++i) {
    auto client = store::redis_client::connect(redis_endpoint_of(*c, i));
    if (!client)
      continue;
    auto r = client->call({"MEMORY", "USAGE", key, "SAMPLES", "0"});
    if (r && r->view().is_integer())
      return r->view().integer();
  }
  return -1;
}

std::uint64_t micros(clock::duration d) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

/// Runs the driver until `done()` or the deadline; false on timeout.
bool wait_for(context& ctx, const std::function<bool()>& done, double seconds,
              const std::string& what) {
  auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                     std::chrono::duration<double>(seconds));
  ticker tick;
  while (!done()) {
    if (clock::now() > deadline)
      return false;
    ctx.http.poll(std::chrono::milliseconds{2});
    ctx.watch.tick();
    if (tick())
      say("large: " + what);
  }
  return true;
}

/// Sends `request` and runs the driver until it is answered and `also()`
/// holds (when given), or the timeout: the answer, or none if there was none.
std::optional<http_response> answer_to(context& ctx, http_request request,
                                       const std::string& what,
                                       const std::function<bool()>& also = {}) {
  // Shared with the callback: an answer after the timeout arrives while a
  // later step drives the client, when this frame is gone.
  auto answer = std::make_shared<std::optional<http_response>>();
  ctx.http.submit(std::move(request),
                  [answer](http_response&& resp) { *answer = std::move(resp); });
  wait_for(
      ctx, [&] { return answer->has_value() && (!also || also()); },
      ctx.opts.timeout_seconds, what);
  return *answer;
}

/// The answer's status, 0 if there was none.
long status_of(const std::optional<http_response>& answer) {
  return answer ? answer->status : 0;
}

/// The answer's body as JSON: discarded if there was none or it is not JSON.
nlohmann::json json_of(const std::optional<http_response>& answer) {
  return nlohmann::json::parse(answer ? answer->body : "", nullptr, false);
}

/// The answer's first `n` bytes, for a problem's report ("" if none).
std::string excerpt(const std::optional<http_response>& answer, std::size_t n) {
  return answer ? answer->body.substr(0, n) : std::string();
}

} // namespace

result run_large(context& ctx) {
  const auto& o = ctx.opts;
  say("large: one book of " + std::to_string(o.large_cards) + " cards, then a delta of " +
      std::to_string(o.delta_edits) + " edits");
  auto persons = ctx.new_persons(1);
  auto& p = persons[0];
  // The sibling: the first line at another carrier.
  std::size_t sib = 1;
  while (sib < p.lines.size() && p.lines[sib].carrier == p.lines[0].carrier)
    ++sib;
  auto& from = p.lines[0];
  auto& to = p.lines[sib];

  std::string book;
  std::set<std::string> uids;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < o.large_cards; ++i) {
    auto uid = "lg-" + from.msisdn.substr(1) + "-" + std::to_string(i);
    book += make_card(uid, i, 0);
    uids.insert(uid);
    order.push_back(uid);
  }
  result r{{"scenario", "large"},
           {"cards", o.large_cards},
           {"book_bytes", book.size()},
           {"card_bytes_avg", static_cast<double>(book.size()) / o.large_cards},
           {"from", from.carrier},
           {"to", to.carrier},
           {"detection", ctx.watch.method()},
           {"resolution_ms", ctx.watch.resolution_ms()}};
  std::vector<std::string> problems;

  auto mem_from_before = used_memory(ctx.dep, from.carrier);
  auto mem_to_before = used_memory(ctx.dep, to.carrier);

  // -- the book ---------------------------------------------------------------
  bool arrived = false;
  clock::time_point seen_at{};
  ctx.watch.watch_count(p, to, o.large_cards, [&](clock::time_point when) {
    arrived = true;
    seen_at = when;
  });
  auto start = clock::now();
  auto put = answer_to(
      ctx,
      {"PUT", line_url(from, "/contacts?scope=shared"), book, "text/vcard", from.token},
      "waiting for the book at the sibling", [&] { return arrived; });
  if (!put || !arrived)
    problems.push_back("the book did not arrive in time (PUT answered " +
                       std::to_string(status_of(put)) + ")");
  ctx.watch.clear();
  if (status_of(put) != 200)
    problems.push_back("PUT answered " + std::to_string(status_of(put)) + ": " +
                       excerpt(put, 300));
  double book_s = arrived ? std::chrono::duration<double>(seen_at - start).count() : -1;
  r["book_seconds"] = book_s;
  r["put_seconds"] =
      put ? std::chrono::duration<double>(put->done - start).count() : -1.0;
  r["changes_per_s"] = book_s > 0 ? static_cast<double>(o.large_cards) / book_s : 0.0;
  say("large: book of " + std::to_string(o.large_cards) + " cards visible at " +
      to.carrier + " after " + std::to_string(book_s) + " s");

  // -- Redis bytes per card (the outbox is trimmed once the peer acked) --------
  if (mem_from_before >= 0 && mem_to_before >= 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds{500});
    auto from_after = used_memory(ctx.dep, from.carrier);
    auto to_after = used_memory(ctx.dep, to.carrier);
    auto per_card = [&](long long before, long long after) {
      return static_cast<double>(after - before) / static_cast<double>(o.large_cards);
    };
    auto shared = memory_usage(ctx.dep, from.carrier, store::keys::shared(p.idcode));
    nlohmann::json mem{
        {"origin_used_memory_per_card", per_card(mem_from_before, from_after)},
        {"sibling_used_memory_per_card", per_card(mem_to_before, to_after)},
        {"shared_store_bytes_per_card",
         shared >= 0 ? static_cast<double>(shared) / o.large_cards : -1.0},
        {"card_bytes_avg", static_cast<double>(book.size()) / o.large_cards}};
    mem["shared_store_ratio"] = shared >= 0
                                    ? mem["shared_store_bytes_per_card"].get<double>() /
                                          mem["card_bytes_avg"].get<double>()
                                    : -1.0;
    mem["origin_ratio"] = mem["origin_used_memory_per_card"].get<double>() /
                          mem["card_bytes_avg"].get<double>();
    r["redis_memory"] = mem;
  }

  // -- verify the book, then apply it at the sibling (untimed) -----------------
  // As a phone does: its counts first, then the change set.
  auto counted = answer_to(ctx, {"POST", line_url(to, "/update"), "", "", to.token},
                           "counting the book");
  auto book_counts = json_of(counted);
  if (status_of(counted) != 200 || !book_counts.is_object() ||
      book_counts.value("added", std::size_t{0}) != o.large_cards)
    problems.push_back("update request of the book: " + excerpt(counted, 300));
  expectation whole{&p, &to, o.large_cards, 0, 0, uids};
  std::string cursor;
  auto fetched = answer_to(ctx, {"GET", line_url(to, "/pending"), "", "", to.token},
                           "fetching the book");
  auto pending = json_of(fetched);
  if (status_of(fetched) != 200 || pending.is_discarded()) {
    problems.push_back("GET pending of the book: " + std::to_string(status_of(fetched)));
  } else {
    if (auto why = compare_pending(pending, whole); !why.empty())
      problems.push_back("book: " + why);
    cursor = pending.value("cursor", std::string());
  }
  auto acked =
      answer_to(ctx,
                {"POST", line_url(to, "/pending/ack"),
                 nlohmann::json{{"cursor", cursor}, {"decision", "apply"}}.dump(),
                 "application/json", to.token},
                "applying the book");
  if (status_of(acked) != 200)
    problems.push_back("ack of the book: " + std::to_string(status_of(acked)));

  // -- the delta: edits of existing cards, one POST ---------------------------
  std::string delta;
  std::set<std::string> edited;
  histogram each;
  std::size_t visible = 0;
  clock::time_point last{};
  auto n = std::min(o.delta_edits, order.size());
  for (std::size_t i = 0; i < n; ++i) {
    delta += make_card(order[i], i, 1);
    edited.insert(order[i]);
  }
  auto delta_start = clock::now();
  for (std::size_t i = 0; i < n; ++i)
    ctx.watch.watch_uid(p, to, order[i], i + 1, [&](clock::time_point when) {
      each.record(micros(when - delta_start));
      last = std::max(last, when);
      ++visible;
    });
  auto posted = answer_to(
      ctx,
      {"POST", line_url(from, "/contacts?scope=shared"), delta, "text/vcard", from.token},
      "waiting for the delta at the sibling", [&] { return visible == n; });
  auto delta_answer = json_of(posted);
  if (status_of(posted) != 200 || delta_answer.is_discarded() ||
      delta_answer.value("changed", std::size_t{0}) != n)
    problems.push_back("delta POST: " + std::to_string(status_of(posted)) + " " +
                       excerpt(posted, 200));
  if (visible != n)
    problems.push_back(std::to_string(n - visible) + " of " + std::to_string(n) +
                       " delta edits never became visible");
  ctx.watch.clear();
  r["delta_edits"] = n;
  r["delta_ms"] = visible == n
                      ? std::chrono::duration<double>(last - delta_start).count() * 1000
                      : -1.0;
  put_latency(r, each);

  expectation delta_want{&p, &to, 0, n, 0, edited};
  auto check = check_mailboxes(ctx.http, {delta_want});
  for (auto& why : check.problems)
    problems.push_back("delta: " + why);

  // -- a re-sync: the line's whole book again, as it holds it -------------------
  // (What a phone sends when it syncs everything: every card is unchanged, so
  // the store changes nothing and offers nothing; timed to its answer.)
  std::string resync;
  for (std::size_t i = 0; i < order.size(); ++i)
    resync += make_card(order[i], i, i < n ? 1 : 0);
  auto resync_start = clock::now();
  auto resynced = answer_to(
      ctx,
      {"PUT", line_url(from, "/contacts?scope=shared"), resync, "text/vcard", from.token},
      "re-syncing the book");
  auto counts = json_of(resynced);
  if (!resynced)
    problems.push_back("the re-sync was not answered in time");
  else if (resynced->status != 200 || counts.is_discarded() ||
           counts.value("unchanged", std::size_t{0}) != o.large_cards ||
           counts.value("added", std::size_t{0}) +
                   counts.value("changed", std::size_t{0}) +
                   counts.value("removed", std::size_t{0}) !=
               0)
    problems.push_back("re-sync PUT: " + std::to_string(resynced->status) + " " +
                       excerpt(resynced, 200));
  r["resync_seconds"] =
      resynced ? std::chrono::duration<double>(resynced->done - resync_start).count()
               : -1.0;
  r["verified"] = problems.empty() && check.ok;
  r["problems"] = problems;
  return r;
}

} // namespace simsync::load
