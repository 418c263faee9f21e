// Interactive: single-card edits (POST delta, each a new uid, so each is one
// countable change) at a constant offered rate, open loop: edit i is due at
// start + i/rate and its latency runs from then, whether or not the client
// or the server kept up. Latency ends when the change is in the pending
// mailbox of every sibling line at another carrier (the whole federated
// path). The rate steps up; the answer is the highest rate whose p99 stays
// under the target.

#include "load/progress.hpp"
#include "load/scenarios/scenario.hpp"

#include <cmath>
#include <stdexcept>

namespace simsync::load {

namespace {

std::uint64_t micros(clock::duration d) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  return us < 0 ? 0 : static_cast<std::uint64_t>(us);
}

/// Lines of `p` at a carrier other than line 0's: where the edit must travel.
std::vector<std::size_t> remote_siblings(const person& p) {
  std::vector<std::size_t> out;
  for (std::size_t i = 1; i < p.lines.size(); ++i)
    if (p.lines[i].carrier != p.lines[0].carrier)
      out.push_back(i);
  return out;
}

std::uint64_t max_resident_kib(const deployment& d) {
  std::uint64_t kib = 0;
  for (const auto& c : d.carriers)
    for (int pid : c.carrierd_pids)
      kib = std::max(kib, resident_kib(pid));
  return kib;
}

} // namespace

result run_interactive(context& ctx) {
  const auto& o = ctx.opts;
  std::string error;
  auto rates = parse_rates(o.rates, &error);
  say("interactive: " + std::to_string(o.interactive_persons) + " persons, rates " +
      o.rates + " edits/s, " + std::to_string(o.step_seconds) + " s per step");
  auto persons = ctx.new_persons(o.interactive_persons);

  // Per person: the uids whose upload was accepted (what the mailboxes must hold),
  // and how many changes each remote sibling has been sent (API-poll attribution).
  std::vector<std::set<std::string>> accepted(persons.size());
  std::vector<std::vector<std::size_t>> sent_count(persons.size());
  for (std::size_t i = 0; i < persons.size(); ++i)
    sent_count[i].assign(persons[i].lines.size(), 0);

  result r{{"scenario", "interactive"},
           {"persons", persons.size()},
           {"target_p99_ms", o.target_p99_ms},
           {"detection", ctx.watch.method()},
           {"resolution_ms", ctx.watch.resolution_ms()}};
  auto steps = nlohmann::json::array();
  std::size_t errors_total = 0, lost_total = 0;
  std::vector<std::string> problems;
  std::uint64_t serial = 0;
  double best_rate = 0;
  nlohmann::json best_step, last_step;

  for (std::size_t step = 0; step < rates.size(); ++step) {
    double rate = rates[step];
    auto duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(o.step_seconds));
    // Start a little ahead so the first edits are not already late.
    open_loop_schedule schedule(rate, duration,
                                clock::now() + std::chrono::milliseconds{20});
    // issue_lag: how late the client sent each edit. Large values mean the
    // client (not the server) fell behind; the latency still counts from due.
    histogram visible, http_hist, issue_lag;
    std::size_t issued = 0, ok = 0, shed = 0, errors = 0, seen = 0;
    std::uint64_t rss_max = 0;
    auto usage_before = process_usage::sample(ctx.dep);
    clock::time_point last_visible{};
    ticker tick;

    auto issue = [&](std::uint64_t i) {
      auto pi = static_cast<std::size_t>((serial + i) % persons.size());
      auto& p = persons[pi];
      auto& l = p.lines[0];
      auto due = schedule.due(i);
      issue_lag.record(micros(clock::now() - due));
      auto uid = "ia-" + std::to_string(o.tag) + "-" + std::to_string(step) + "-" +
                 std::to_string(i);
      // Visible when every remote sibling has it.
      auto remote = remote_siblings(p);
      auto remaining = std::make_shared<std::size_t>(remote.size());
      auto latest = std::make_shared<clock::time_point>();
      for (auto s : remote)
        ctx.watch.watch_uid(p, p.lines[s], uid, ++sent_count[pi][s],
                            [&, remaining, latest, due](clock::time_point when) {
                              *latest = std::max(*latest, when);
                              if (--*remaining == 0) {
                                visible.record(micros(*latest - due));
                                last_visible = std::max(last_visible, *latest);
                                ++seen;
                              }
                            });
      ++issued;
      ctx.http.submit({"POST", line_url(l, "/contacts?scope=shared"),
                       make_card(uid, serial + i, 0), "text/vcard", l.token},
                      [&, pi, uid, due, remote](http_response&& resp) {
                        if (resp.status == 200) {
                          ++ok;
                          http_hist.record(micros(resp.done - due));
                          accepted[pi].insert(uid);
                          return;
                        }
                        // Not stored: its watches wait for nothing.
                        for (auto s : remote) {
                          ctx.watch.forget_uid(persons[pi].lines[s], uid);
                          --sent_count[pi][s];
                        }
                        if (resp.status == 503) {
                          ++shed;
                        } else {
                          ++errors;
                          if (problems.size() < 5)
                            problems.push_back(
                                "POST " + persons[pi].lines[0].msisdn + ": " +
                                (resp.status ? std::to_string(resp.status) + " " +
                                                   resp.body.substr(0, 200)
                                             : resp.error));
                        }
                      });
    };

    say("interactive: step " + std::to_string(step + 1) + "/" +
        std::to_string(rates.size()) + ": " + std::to_string(static_cast<long>(rate)) +
        " edits/s for " + std::to_string(o.step_seconds) + " s");
    std::uint64_t next = 0;
    while (next < schedule.total()) {
      auto due = schedule.due_by(clock::now());
      for (; next < due; ++next)
        issue(next);
      auto wait = next < schedule.total() ? schedule.due(next) - clock::now()
                                          : clock::duration::zero();
      ctx.http.poll(std::clamp(wait, clock::duration::zero(),
                               clock::duration{std::chrono::milliseconds{2}}));
      ctx.watch.tick();
      if (tick()) {
        rss_max = std::max(rss_max, max_resident_kib(ctx.dep));
        say("interactive: " + std::to_string(issued) + " issued, " + std::to_string(ok) +
            " accepted, " + std::to_string(shed) + " shed, " + std::to_string(seen) +
            " visible, " + std::to_string(ctx.http.in_flight() + ctx.http.queued()) +
            " requests open, p99 so far " +
            std::to_string(static_cast<double>(visible.percentile(99)) / 1000.0) + " ms");
      }
    }
    // Drain: every accepted edit must become visible (bounded wait).
    auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                       std::chrono::duration<double>(o.timeout_seconds));
    while ((ctx.http.in_flight() + ctx.http.queued() > 0 || ctx.watch.waiting() > 0) &&
           clock::now() < deadline) {
      ctx.http.poll(std::chrono::milliseconds{5});
      ctx.watch.tick();
      if (tick()) {
        rss_max = std::max(rss_max, max_resident_kib(ctx.dep));
        say("interactive: draining, " + std::to_string(ctx.watch.waiting()) +
            " changes not yet visible");
      }
    }
    // Callbacks of this step refer to its locals: none may outlive it
    // (transfers time out after 60 s).
    if (!ctx.http.run_until_idle(clock::now() + std::chrono::seconds{90}))
      throw std::runtime_error("interactive: requests still open 90 s after the step");
    rss_max = std::max(rss_max, max_resident_kib(ctx.dep));
    std::size_t lost = ctx.watch.waiting();
    ctx.watch.clear();
    serial += schedule.total();
    errors_total += errors;
    lost_total += lost;

    auto span = std::chrono::duration<double>(last_visible - schedule.start()).count();
    nlohmann::json s{
        {"offered_per_s", rate},
        {"issued", issued},
        {"accepted", ok},
        {"shed_503", shed},
        {"errors", errors},
        {"not_visible", lost},
        {"visible", seen},
        {"changes_per_s", span > 0 ? static_cast<double>(seen) / span : 0.0}};
    put_latency(s, visible);
    nlohmann::json h;
    put_latency(h, http_hist);
    s["http"] = h;
    nlohmann::json lag;
    put_latency(lag, issue_lag);
    s["issue_lag"] = lag;
    process_usage::sample(ctx.dep).put_per_change(s, usage_before, seen);
    if (rss_max)
      s["carrierd_max_rss_mib"] = static_cast<double>(rss_max) / 1024.0;
    steps.push_back(s);
    last_step = s;
    double p99 = s["p99_ms"];
    say("interactive: " + std::to_string(static_cast<long>(rate)) + "/s -> p50 " +
        std::to_string(s["p50_ms"].get<double>()) + " ms, p99 " + std::to_string(p99) +
        " ms, p99.9 " + std::to_string(s["p999_ms"].get<double>()) + " ms, " +
        std::to_string(shed) + " shed, " + std::to_string(lost) + " not visible");
    bool within = p99 <= o.target_p99_ms && shed == 0 && lost == 0 && errors == 0 &&
                  visible.count() > 0;
    if (within && rate > best_rate) {
      best_rate = rate;
      best_step = s;
    }
    // Far past the target there is nothing more to learn, only a longer queue.
    if (p99 > 10 * o.target_p99_ms || lost > 0)
      break;
  }

  r["steps"] = steps;
  r["best_rate_per_s"] = best_rate;
  const auto& shown = best_step.is_null() ? last_step : best_step;
  for (const char* k : {"p50_ms", "p99_ms", "p999_ms", "max_ms", "changes_per_s"})
    if (shown.contains(k))
      r[k] = shown[k];
  r["reported_step_rate"] = shown.value("offered_per_s", 0.0);

  // Verify through the API: each sibling line (at any carrier) holds exactly
  // the accepted edits of its person, each as one added card.
  say("interactive: verifying the mailboxes");
  std::vector<expectation> want;
  for (std::size_t i = 0; i < persons.size(); ++i)
    for (auto s : sibling_lines(persons[i], 0))
      want.push_back(
          {&persons[i], &persons[i].lines[s], accepted[i].size(), 0, 0, accepted[i]});
  auto check = check_mailboxes(ctx.http, want);
  for (auto& p : check.problems)
    problems.push_back(p);
  if (lost_total)
    problems.push_back(std::to_string(lost_total) +
                       " accepted edits never became visible");
  r["verified"] = check.ok && errors_total == 0 && lost_total == 0 && !steps.empty();
  r["checked_mailboxes"] = check.lines;
  r["problems"] = problems;
  return r;
}

} // namespace simsync::load
