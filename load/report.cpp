#include "load/report.hpp"

#include "load/progress.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace simsync::load {

namespace {

std::string number(const nlohmann::json& j, const char* key, int precision = 1) {
  if (!j.contains(key) || !j[key].is_number())
    return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, j[key].get<double>());
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width)
    s.insert(0, width - s.size(), ' ');
  return s;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0)
      ::close(fd);
    throw std::runtime_error("no free port");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

/// Runs a command, returns its stdout (and exit status in *status).
std::string capture(const std::string& command, int* status) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    *status = -1;
    return {};
  }
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
    out.append(buf, n);
  *status = ::pclose(pipe);
  return out;
}

} // namespace

std::string format_table(const std::vector<nlohmann::json>& results) {
  std::ostringstream out;
  out << "scenario       verified   changes/s     p50 ms     p99 ms   p99.9 ms  notes\n";
  for (const auto& r : results) {
    std::string name = r.value("scenario", "?");
    name.resize(14, ' ');
    std::string verified =
        r.contains("verified") ? (r["verified"].get<bool>() ? "yes" : "NO") : "-";
    std::string notes;
    auto s = r.value("scenario", "");
    if (s == "interactive")
      notes = "best rate with p99 <= " + number(r, "target_p99_ms", 0) +
              " ms: " + number(r, "best_rate_per_s", 0) + "/s (figures of the " +
              number(r, "reported_step_rate", 0) + "/s step)";
    else if (s == "bulk")
      notes = number(r, "persons", 0) + " books of " + number(r, "cards_per_book", 0) +
              " cards in " + number(r, "seconds", 2) + " s";
    else if (s == "pull")
      notes = number(r, "lines", 0) + " lines, " + number(r, "requests_per_s", 0) +
              " requests/s, " + number(r, "seconds", 2) + " s";
    else if (s == "large")
      notes = number(r, "cards", 0) + " cards in " + number(r, "book_seconds", 2) +
              " s; delta of " + number(r, "delta_edits", 0) + " in " +
              number(r, "delta_ms", 1) + " ms; re-sync answered in " +
              number(r, "resync_seconds", 2) + " s";
    else if (s == "redis_ceiling")
      notes = r.contains("error")
                  ? r["error"].get<std::string>()
                  : "redis-benchmark HSET -P 16: " + number(r, "hset_per_s", 0) + "/s";
    if (r.contains("ratio_to_redis")) {
      nlohmann::json pct{{"v", r["ratio_to_redis"].get<double>() * 100}};
      notes += "; " + number(pct, "v", 2) + "% of Redis HSET/s";
    }
    out << name << " " << pad(verified, 8) << " "
        << pad(number(r, "changes_per_s", 0), 10) << " "
        << pad(number(r, "p50_ms", 2), 10) << " " << pad(number(r, "p99_ms", 2), 10)
        << " " << pad(number(r, "p999_ms", 2), 10) << "  " << notes << "\n";
  }
  return out.str();
}

void write_json(const std::string& file, const std::vector<nlohmann::json>& results) {
  std::ofstream out(file);
  out << nlohmann::json(results).dump(2) << "\n";
  if (!out)
    throw std::runtime_error("cannot write " + file);
}

std::string plot_script(const std::string& data, const std::string& png,
                        double target_ms) {
  std::ostringstream s;
  s << "set terminal pngcairo size 900,560 font 'sans,10'\n"
    << "set output '" << png << "'\n"
    << "set title 'simsync interactive edits: latency to the sibling mailbox (open "
       "loop)'\n"
    << "set xlabel 'offered edits/s'\n"
    << "set ylabel 'latency (ms)'\n"
    << "set logscale y\n"
    << "set grid\n"
    << "set key top left\n"
    << "plot '" << data << "' using 1:2 with linespoints title 'p50', \\\n"
    << "     '" << data << "' using 1:3 with linespoints title 'p99', \\\n"
    << "     '" << data << "' using 1:4 with linespoints title 'p99.9', \\\n"
    << "     " << target_ms << " with lines dashtype 2 title 'p99 target (" << target_ms
    << " ms)'\n";
  return s.str();
}

std::string write_plot(const std::string& png, const nlohmann::json& interactive) {
  if (!interactive.contains("steps") || interactive["steps"].empty())
    return "no interactive steps to plot";
  auto data = png + ".dat";
  {
    std::ofstream out(data);
    out << "# offered_per_s p50_ms p99_ms p999_ms\n";
    for (const auto& s : interactive["steps"])
      out << s.value("offered_per_s", 0.0) << " " << s.value("p50_ms", 0.0) << " "
          << s.value("p99_ms", 0.0) << " " << s.value("p999_ms", 0.0) << "\n";
    if (!out)
      return "cannot write " + data;
  }
  auto script = png + ".gnuplot";
  {
    std::ofstream out(script);
    out << plot_script(data, png, interactive.value("target_p99_ms", 25.0));
    if (!out)
      return "cannot write " + script;
  }
  int status = 0;
  auto output = capture("gnuplot '" + script + "' 2>&1", &status);
  if (status != 0)
    return "gnuplot failed: " + output;
  return {};
}

double parse_benchmark_rate(const std::string& output, const std::string& test) {
  // -q prints "HSET: 123456.78 requests per second, p50=0.191 msec" (possibly
  // after carriage-return progress updates).
  auto at = output.rfind(test + ": ");
  if (at == std::string::npos)
    return 0;
  return std::atof(output.c_str() + at + test.size() + 2);
}

nlohmann::json redis_ceiling(std::size_t requests) {
  nlohmann::json r{{"scenario", "redis_ceiling"}, {"verified", true}};
  int port = 0;
  try {
    port = free_port();
  } catch (const std::exception& e) {
    r["error"] = e.what();
    return r;
  }
  auto port_text = std::to_string(port);
  std::vector<std::string> args{
      "redis-server", "--bind", "127.0.0.1",   "--port", port_text, "--save", "",
      "--appendonly", "no",     "--daemonize", "no",     "--dir",   "/tmp"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (posix_spawnp(&pid, "redis-server", &actions, nullptr, argv.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    r["error"] = "cannot start redis-server";
    return r;
  }
  posix_spawn_file_actions_destroy(&actions);
  say("redis ceiling: redis-server pid " + std::to_string(pid) + " on port " + port_text +
      ", redis-benchmark -t hset -P 16");
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    capture("redis-cli -p " + port_text + " ping 2>/dev/null", &status);
    if (status == 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  auto cmd = "redis-benchmark -h 127.0.0.1 -p " + port_text + " -t hset -P 16 -c 50 -n " +
             std::to_string(requests) + " -q 2>&1";
  auto output = capture(cmd, &status);
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
  r["command"] =
      "redis-benchmark -t hset -P 16 -c 50 -n " + std::to_string(requests) + " -q";
  r["hset_per_s"] = parse_benchmark_rate(output, "HSET");
  r["changes_per_s"] = r["hset_per_s"];
  if (r["hset_per_s"].get<double>() <= 0)
    r["error"] = "redis-benchmark printed no HSET rate: " + output.substr(0, 300);
  return r;
}

} // namespace simsync::load
