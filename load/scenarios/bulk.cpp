// Bulk: each person's first line pushes a book of N cards (PUT snapshot);
// timed from the first PUT until every sibling line's mailbox holds the book.

#include "load/progress.hpp"
#include "load/scenarios/scenario.hpp"

namespace simsync::load {

namespace {

std::string book_of(const person& p, std::size_t cards, std::size_t person_index,
                    std::vector<std::string>* uids) {
  std::string body;
  for (std::size_t i = 0; i < cards; ++i) {
    auto uid = "bk-" + p.lines[0].msisdn.substr(1) + "-" + std::to_string(i);
    body += make_card(uid, person_index * 1000003 + i, 0);
    uids->push_back(std::move(uid));
  }
  return body;
}

} // namespace

result run_bulk(context& ctx) {
  const auto& o = ctx.opts;
  say("bulk: " + std::to_string(o.persons) + " persons, a book of " +
      std::to_string(o.cards) + " cards each");
  auto persons = ctx.new_persons(o.persons);
  std::vector<std::string> bodies;
  std::vector<std::vector<std::string>> uids(persons.size());
  std::size_t mailboxes = 0, book_bytes = 0;
  for (std::size_t i = 0; i < persons.size(); ++i) {
    bodies.push_back(book_of(persons[i], o.cards, i, &uids[i]));
    book_bytes += bodies.back().size();
    mailboxes += persons[i].lines.size() - 1;
  }

  result r{{"scenario", "bulk"},
           {"persons", persons.size()},
           {"cards_per_book", o.cards},
           {"sibling_mailboxes", mailboxes},
           {"detection", ctx.watch.method()},
           {"resolution_ms", ctx.watch.resolution_ms()}};
  std::size_t complete = 0, uploaded = 0, shed = 0;
  std::vector<std::string> errors;
  clock::time_point last_seen{};
  histogram put_hist;

  auto usage_before = process_usage::sample(ctx.dep);
  auto start = clock::now();
  for (std::size_t i = 0; i < persons.size(); ++i) {
    auto& p = persons[i];
    for (auto s : sibling_lines(p, 0))
      ctx.watch.watch_count(p, p.lines[s], o.cards, [&](clock::time_point when) {
        ++complete;
        last_seen = std::max(last_seen, when);
      });
  }
  // Every PUT at once: the driver's connection pool bounds the concurrency.
  std::function<void(std::size_t, clock::time_point)> push = [&](std::size_t i,
                                                                 clock::time_point when) {
    auto& l = persons[i].lines[0];
    ctx.http.submit_at(
        when,
        {"PUT", line_url(l, "/contacts?scope=shared"), bodies[i], "text/vcard", l.token},
        [&, i, sent = when](http_response&& resp) {
          if (resp.status == 503) { // shed: retried after Retry-After, as a phone would
            ++shed;
            return push(i, resp.retry_at());
          }
          put_hist.record(static_cast<std::uint64_t>(
              std::chrono::duration_cast<std::chrono::microseconds>(resp.done - sent)
                  .count()));
          auto j = nlohmann::json::parse(resp.body, nullptr, false);
          if (resp.status != 200 || j.is_discarded() ||
              j.value("added", std::size_t{0}) != o.cards) {
            if (errors.size() < 5)
              errors.push_back("PUT " + l.msisdn + ": " +
                               (resp.status ? std::to_string(resp.status) : resp.error) +
                               " " + resp.body.substr(0, 200));
            return;
          }
          ++uploaded;
        });
  };
  for (std::size_t i = 0; i < persons.size(); ++i)
    push(i, clock::now());

  ticker tick;
  auto deadline = start + std::chrono::duration_cast<clock::duration>(
                              std::chrono::duration<double>(o.timeout_seconds));
  while (complete < mailboxes && clock::now() < deadline && errors.empty()) {
    ctx.http.poll(std::chrono::milliseconds{5});
    ctx.watch.tick();
    if (tick())
      say("bulk: " + std::to_string(uploaded) + "/" + std::to_string(persons.size()) +
          " books accepted, " + std::to_string(complete) + "/" +
          std::to_string(mailboxes) + " sibling mailboxes complete");
  }
  ctx.http.run_until_idle(clock::now() + std::chrono::seconds{30});
  process_usage::sample(ctx.dep).put_per_change(r, usage_before,
                                                persons.size() * o.cards);
  ctx.watch.clear();
  auto seconds = std::chrono::duration<double>(last_seen - start).count();
  auto changes = static_cast<double>(persons.size() * o.cards);
  r["complete_mailboxes"] = complete;
  r["shed_503"] = shed;
  r["seconds"] = complete == mailboxes ? seconds : -1.0;
  r["changes"] = persons.size() * o.cards;
  // A change is one card of one book, counted once however many siblings get it.
  r["changes_per_s"] = complete == mailboxes && seconds > 0 ? changes / seconds : 0.0;
  r["mailbox_entries_per_s"] = complete == mailboxes && seconds > 0
                                   ? static_cast<double>(mailboxes * o.cards) / seconds
                                   : 0.0;
  r["book_bytes"] = book_bytes;
  nlohmann::json put;
  put_latency(put, put_hist);
  r["put"] = put;
  say("bulk: " + std::to_string(complete) + "/" + std::to_string(mailboxes) +
      " mailboxes complete in " + std::to_string(seconds) + " s; verifying");

  // Verify through the API: every sibling holds exactly the book, the pusher nothing.
  std::vector<expectation> want;
  for (std::size_t i = 0; i < persons.size(); ++i) {
    auto& p = persons[i];
    std::set<std::string> book(uids[i].begin(), uids[i].end());
    want.push_back({&p, &p.lines[0], 0, 0, 0, {}});
    for (auto s : sibling_lines(p, 0))
      want.push_back({&p, &p.lines[s], o.cards, 0, 0, book});
  }
  auto check = check_mailboxes(ctx.http, want);
  for (auto& e : errors)
    check.problems.insert(check.problems.begin(), e);
  bool ok =
      check.ok && errors.empty() && complete == mailboxes && uploaded == persons.size();
  if (complete < mailboxes)
    check.problems.push_back(std::to_string(mailboxes - complete) +
                             " mailboxes incomplete after the timeout");
  r["verified"] = ok;
  r["checked_mailboxes"] = check.lines;
  r["problems"] = check.problems;
  if (ok) {
    ctx.pending_persons = std::move(persons);
    ctx.pending_cards = o.cards;
  }
  return r;
}

} // namespace simsync::load
