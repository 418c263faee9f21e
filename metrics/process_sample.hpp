#pragma once

// What the operating system says about this process (Linux /proc/self), for
// /metrics under the names Prometheus's own clients use (process_*): CPU
// time, resident memory, open and allowed file descriptors, threads.

#include <cstdint>

namespace simsync::metrics {

struct process_sample {
  bool known = false;     ///< false where /proc/self could not be read
  double cpu_seconds = 0; ///< user and system time since the process started
  std::uint64_t resident_bytes = 0;
  std::uint64_t virtual_bytes = 0;
  std::uint64_t open_fds = 0;
  std::uint64_t max_fds = 0; ///< the soft limit (RLIMIT_NOFILE)
  std::uint64_t threads = 0;
  double start_time_s = 0; ///< Unix time the process started
};

process_sample read_process_sample();

} // namespace simsync::metrics
