#include "core/vcard.hpp"
#include "load/progress.hpp"
#include "load/scenarios/scenario.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace simsync::load {

std::vector<person> context::new_persons(std::size_t count) {
  auto persons = make_persons(dep, count, opts.tag, next_person);
  next_person += count;
  std::size_t lines = 0;
  for (const auto& p : persons)
    lines += p.lines.size();
  say("setup: registering " + std::to_string(count) + " persons (" +
      std::to_string(lines) + " lines)");
  register_all(http, dep, persons);
  wait_for_siblings(dep, persons, std::chrono::seconds{120},
                    std::chrono::milliseconds{2000});
  return persons;
}

std::vector<std::string> uids_of(const std::string& body) {
  std::vector<std::string> uids;
  core::vcard_reader reader(body);
  core::vcard_block block;
  while (reader.next(&block)) {
    if (!block.ok()) {
      uids.push_back("(unparsable card: " + block.error + ")");
      continue;
    }
    const auto* uid = block.card.find("UID");
    uids.push_back(uid ? uid->value() : "(no UID)");
  }
  return uids;
}

std::string compare_pending(const nlohmann::json& answer, const expectation& want) {
  std::ostringstream why;
  auto count = [&](const char* name, std::size_t expected) {
    auto got = answer.value(name, std::size_t{0});
    if (got != expected)
      why << name << " " << got << " (expected " << expected << ") ";
  };
  count("added", want.added);
  count("changed", want.changed);
  count("removed", want.removed);
  std::set<std::string> got;
  std::size_t n = 0;
  for (auto& uid : uids_of(answer.value("cards", std::string()))) {
    got.insert(uid);
    ++n;
  }
  if (answer.contains("removed_uids"))
    for (const auto& uid : answer["removed_uids"]) {
      got.insert(uid.get<std::string>());
      ++n;
    }
  if (n != got.size())
    why << "a uid is listed twice ";
  if (got != want.uids) {
    std::size_t missing = 0, extra = 0;
    for (const auto& u : want.uids)
      missing += got.count(u) == 0;
    for (const auto& u : got)
      extra += want.uids.count(u) == 0;
    why << missing << " expected uids missing, " << extra << " unexpected uids ";
  }
  auto text = why.str();
  if (!text.empty())
    text = want.at->msisdn + " at " + want.at->carrier + ": " + text;
  return text;
}

check_result check_mailboxes(http_driver& http, const std::vector<expectation>& want) {
  check_result out;
  ticker tick;
  std::size_t done = 0;
  for (const auto& w : want) {
    http.submit({"GET", line_url(*w.at, "/pending"), "", "", w.at->token},
                [&out, &w, &done](http_response&& r) {
                  ++done;
                  ++out.lines;
                  std::string problem;
                  if (r.status != 200) {
                    problem = w.at->msisdn + ": GET pending answered " +
                              (r.status ? std::to_string(r.status) : r.error);
                  } else {
                    auto j = nlohmann::json::parse(r.body, nullptr, false);
                    if (j.is_discarded())
                      problem = w.at->msisdn + ": GET pending is not JSON";
                    else {
                      out.entries += j.value("added", std::size_t{0}) +
                                     j.value("changed", std::size_t{0}) +
                                     j.value("removed", std::size_t{0});
                      problem = compare_pending(j, w);
                    }
                  }
                  if (!problem.empty()) {
                    out.ok = false;
                    if (out.problems.size() < 5)
                      out.problems.push_back(problem);
                  }
                });
  }
  while (done < want.size()) {
    http.poll(std::chrono::milliseconds{20});
    if (tick())
      say("verify: checked " + std::to_string(done) + " of " +
          std::to_string(want.size()) + " mailboxes");
  }
  return out;
}

void put_latency(nlohmann::json& out, const histogram& h, const std::string& prefix) {
  auto ms = [](std::uint64_t us) { return static_cast<double>(us) / 1000.0; };
  out[prefix + "p50_ms"] = ms(h.percentile(50));
  out[prefix + "p99_ms"] = ms(h.percentile(99));
  out[prefix + "p999_ms"] = ms(h.percentile(99.9));
  out[prefix + "max_ms"] = ms(h.max());
  out[prefix + "samples"] = h.count();
}

namespace {

/// The number a /proc status file gives for `name` ("VmRSS", ...); 0 if the
/// file or the field is not there.
double status_number(const std::filesystem::path& status_file, std::string_view name) {
  std::ifstream status(status_file);
  for (std::string line; std::getline(status, line);)
    if (line.size() > name.size() && line.compare(0, name.size(), name) == 0 &&
        line[name.size()] == ':')
      return std::strtod(line.c_str() + name.size() + 1, nullptr);
  return 0;
}

/// The voluntary context switches of every thread of /proc/<pid> (each
/// thread's own in task/<tid>/status: the process's status counts its first
/// thread's alone); 0 if unknown.
double wakes_of(const std::string& pid) {
  std::error_code failed;
  std::filesystem::directory_iterator tasks("/proc/" + pid + "/task", failed);
  double sum = 0;
  for (; !failed && tasks != std::filesystem::directory_iterator{};
       tasks.increment(failed))
    sum += status_number(tasks->path() / "status", "voluntary_ctxt_switches");
  return sum;
}

/// CPU time (utime + stime) and minor page faults of /proc/<pid>/stat, and
/// its threads' wake-ups; 0 if unknown.
process_usage::counters counters_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  auto paren = text.rfind(')'); // the command name may hold spaces
  if (paren == std::string::npos)
    return {};
  std::istringstream fields(text.substr(paren + 2));
  std::string f;
  unsigned long long minflt = 0, utime = 0, stime = 0;
  // Fields after the name start at 3 (state); minflt is 10, utime 14, stime 15.
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 10)
      minflt = std::stoull(f);
    if (i == 14)
      utime = std::stoull(f);
    if (i == 15)
      stime = std::stoull(f);
  }
  return {static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK)),
          static_cast<double>(minflt), wakes_of(pid)};
}

void add(process_usage::counters& sum, const process_usage::counters& more) {
  sum.cpu_seconds += more.cpu_seconds;
  sum.page_faults += more.page_faults;
  sum.wakes += more.wakes;
}

} // namespace

process_usage process_usage::sample(const deployment& d) {
  process_usage u;
  for (const auto& c : d.carriers) {
    for (int pid : c.carrierd_pids)
      add(u.carrierd, counters_of(std::to_string(pid)));
    for (int pid : c.redis_pids)
      add(u.redis, counters_of(std::to_string(pid)));
  }
  u.loadtest = counters_of("self");
  return u;
}

void process_usage::put_per_change(nlohmann::json& out, const process_usage& before,
                                   std::size_t changes) const {
  if (changes == 0 || (carrierd.cpu_seconds == 0 && redis.cpu_seconds == 0))
    return;
  auto per_change = [&](double counters::*figure, double scale) {
    auto since = [&](const counters& now, const counters& then) {
      return (now.*figure - then.*figure) * scale / static_cast<double>(changes);
    };
    return nlohmann::json{{"carrierd", since(carrierd, before.carrierd)},
                          {"redis-server", since(redis, before.redis)},
                          {"loadtest", since(loadtest, before.loadtest)}};
  };
  out["cpu_ms_per_change"] = per_change(&counters::cpu_seconds, 1000.0);
  out["page_faults_per_change"] = per_change(&counters::page_faults, 1.0);
  out["thread_wakes_per_change"] = per_change(&counters::wakes, 1.0);
}

std::uint64_t resident_kib(int pid) {
  return static_cast<std::uint64_t>(
      status_number("/proc/" + std::to_string(pid) + "/status", "VmRSS"));
}

} // namespace simsync::load
