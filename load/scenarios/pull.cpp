// Pull storm: every line at once asks for updates (POST /update), fetches
// its pending mailbox (GET /pending) and acknowledges it (POST /pending/ack,
// apply). Timed from the first request to the last ack; each answer is
// checked against what the mailbox must hold.

#include "load/progress.hpp"
#include "load/scenarios/scenario.hpp"

namespace simsync::load {

result run_pull(context& ctx) {
  const auto& o = ctx.opts;
  std::vector<person> persons;
  std::size_t cards = 0;
  if (!ctx.pending_persons.empty()) {
    persons = std::move(ctx.pending_persons);
    cards = ctx.pending_cards;
    ctx.pending_persons.clear();
    say("pull: the " + std::to_string(persons.size()) +
        " persons of bulk, their books pending");
  } else {
    // Setup (untimed): books pushed and propagated, as bulk does.
    say("pull: setting up books to pull (bulk first, untimed)");
    auto bulk = run_bulk(ctx);
    if (!bulk.value("verified", false) || ctx.pending_persons.empty()) {
      return {{"scenario", "pull"},
              {"verified", false},
              {"problems", {"setup (bulk) failed: " + bulk["problems"].dump()}}};
    }
    persons = std::move(ctx.pending_persons);
    cards = ctx.pending_cards;
    ctx.pending_persons.clear();
  }

  // What each line's mailbox holds: the book, except on the line that pushed it.
  std::vector<expectation> want;
  for (auto& p : persons) {
    std::set<std::string> book;
    for (std::size_t i = 0; i < cards; ++i)
      book.insert("bk-" + p.lines[0].msisdn.substr(1) + "-" + std::to_string(i));
    want.push_back({&p, &p.lines[0], 0, 0, 0, {}});
    for (auto s : sibling_lines(p, 0))
      want.push_back({&p, &p.lines[s], cards, 0, 0, book});
  }

  histogram all, update_h, pending_h, ack_h;
  std::size_t finished = 0, shed = 0, acked_entries = 0;
  std::vector<std::string> problems;
  auto fail = [&](const std::string& what) {
    if (problems.size() < 5)
      problems.push_back(what);
    ++finished;
  };
  auto record = [&](histogram& h, const http_response& resp) {
    auto us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(resp.done - resp.started)
            .count());
    h.record(us);
    all.record(us);
  };

  // One chain per line: update (stage 0) -> pending (1) -> ack (2, with the
  // fetch's cursor in `ack`). A 503 is counted as shed and that step retried
  // after Retry-After, as a phone would.
  std::function<void(const expectation*, int, clock::time_point, std::string)> step =
      [&](const expectation* w, int stage, clock::time_point when, std::string ack) {
        const auto& l = *w->at;
        static constexpr const char* step_names[] = {"POST update", "GET pending",
                                                     "POST ack"};
        http_request req;
        if (stage == 0)
          req = {"POST", line_url(l, "/update"), "", "", l.token};
        else if (stage == 1)
          req = {"GET", line_url(l, "/pending"), "", "", l.token};
        else
          req = {"POST", line_url(l, "/pending/ack"), ack, "application/json", l.token};
        ctx.http.submit_at(
            when, std::move(req), [&, w, stage, ack](http_response&& resp) {
              if (resp.status == 503) {
                ++shed;
                return step(w, stage, resp.retry_at(), ack);
              }
              if (resp.status != 200)
                return fail(w->at->msisdn + ": " + step_names[stage] + " " +
                            (resp.status ? std::to_string(resp.status) + " " + resp.body
                                         : resp.error));
              record(stage == 0 ? update_h : stage == 1 ? pending_h : ack_h, resp);
              if (stage == 2) {
                acked_entries += w->added + w->changed + w->removed;
                ++finished;
                return;
              }
              auto j = nlohmann::json::parse(resp.body, nullptr, false);
              if (j.is_discarded())
                return fail(w->at->msisdn + ": answer is not JSON");
              if (stage == 0) {
                if (j.value("added", std::size_t{0}) != w->added ||
                    j.value("changed", std::size_t{0}) != w->changed ||
                    j.value("removed", std::size_t{0}) != w->removed)
                  return fail(w->at->msisdn + ": update counts " + resp.body);
                return step(w, 1, clock::now(), "");
              }
              auto why = compare_pending(j, *w);
              if (!why.empty())
                return fail(why);
              nlohmann::json body{{"cursor", j.value("cursor", std::string())},
                                  {"decision", "apply"}};
              step(w, 2, clock::now(), body.dump());
            });
      };

  say("pull: " + std::to_string(want.size()) + " lines update, fetch and ack at once");
  auto start = clock::now();
  for (const auto& w : want)
    step(&w, 0, clock::now(), "");
  ticker tick;
  auto deadline = start + std::chrono::duration_cast<clock::duration>(
                              std::chrono::duration<double>(o.timeout_seconds));
  while (finished < want.size() && clock::now() < deadline) {
    ctx.http.poll(std::chrono::milliseconds{5});
    if (tick())
      say("pull: " + std::to_string(finished) + "/" + std::to_string(want.size()) +
          " lines done, " + std::to_string(acked_entries) + " changes acked");
  }
  auto seconds = std::chrono::duration<double>(clock::now() - start).count();
  if (!ctx.http.run_until_idle(clock::now() + std::chrono::seconds{90}))
    throw std::runtime_error("pull: requests still open 90 s after the storm");

  result r{
      {"scenario", "pull"},
      {"lines", want.size()},
      {"seconds", seconds},
      {"shed_503", shed},
      {"requests", all.count()},
      {"requests_per_s", seconds > 0 ? static_cast<double>(all.count()) / seconds : 0.0},
      {"changes_acked", acked_entries},
      {"changes_per_s",
       seconds > 0 ? static_cast<double>(acked_entries) / seconds : 0.0}};
  put_latency(r, all);
  for (auto [name, h] : {std::pair{"update", &update_h}, std::pair{"pending", &pending_h},
                         std::pair{"ack", &ack_h}}) {
    nlohmann::json j;
    put_latency(j, *h);
    r[name] = j;
  }

  // Verify: every mailbox is empty now (what was fetched was acknowledged).
  say("pull: verifying that every mailbox is empty");
  std::vector<expectation> empty;
  for (const auto& w : want)
    empty.push_back({w.who, w.at, 0, 0, 0, {}});
  auto check = check_mailboxes(ctx.http, empty);
  for (auto& p : check.problems)
    problems.push_back("after ack: " + p);
  if (finished < want.size())
    problems.push_back(std::to_string(want.size() - finished) + " lines unfinished");
  r["verified"] = problems.empty() && check.ok;
  r["problems"] = problems;
  return r;
}

} // namespace simsync::load
