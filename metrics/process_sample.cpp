#include "metrics/process_sample.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace simsync::metrics {

namespace {

/// Seconds since the Unix epoch at which the machine booted (/proc/stat btime).
double boot_time_s() {
  std::ifstream in{"/proc/stat"};
  for (std::string line; std::getline(in, line);)
    if (line.rfind("btime ", 0) == 0)
      return std::stod(line.substr(6));
  return 0;
}

std::uint64_t open_fds() {
  std::uint64_t n = 0;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (auto* entry = ::readdir(dir))
      if (entry->d_name[0] != '.')
        ++n;
    ::closedir(dir);
    return n > 0 ? n - 1 : 0; // the directory read itself holds one
  }
  return 0;
}

} // namespace

process_sample read_process_sample() {
  process_sample out;
  std::ifstream in{"/proc/self/stat"};
  std::string stat{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  // The command name (field 2) is in parentheses and may hold spaces: the
  // fields counted below start after its closing parenthesis, at field 3.
  auto close = stat.rfind(')');
  if (close == std::string::npos)
    return out;
  std::istringstream fields{stat.substr(close + 2)};
  std::string field;
  double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  for (int number = 3; fields >> field; ++number) {
    switch (number) {
    case 14: // utime
    case 15: // stime
      out.cpu_seconds += std::stod(field) / ticks;
      break;
    case 20:
      out.threads = std::stoull(field);
      break;
    case 22: // starttime, in ticks since boot
      out.start_time_s = boot_time_s() + std::stod(field) / ticks;
      break;
    case 23:
      out.virtual_bytes = std::stoull(field);
      break;
    case 24: // rss, in pages
      out.resident_bytes = static_cast<std::uint64_t>(std::stod(field) * page);
      break;
    default:
      break;
    }
  }
  out.open_fds = open_fds();
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0)
    out.max_fds = limit.rlim_cur;
  out.known = true;
  return out;
}

} // namespace simsync::metrics
