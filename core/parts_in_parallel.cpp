#include "core/parts_in_parallel.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <system_error>
#include <thread>
#include <vector>

namespace simsync::core {

namespace {

/// Helper threads the process may still start.
std::atomic<int>& free_helpers() {
  static std::atomic<int> free{
      std::max(0, static_cast<int>(std::thread::hardware_concurrency()) - 1)};
  return free;
}

/// Takes up to `wanted` helpers; returns how many it took.
int take_helpers(int wanted) {
  auto& free = free_helpers();
  int now = free.load();
  int taken = 0;
  do {
    taken = std::min(wanted, now);
    if (taken <= 0)
      return 0;
  } while (!free.compare_exchange_weak(now, now - taken));
  return taken;
}

} // namespace

void parts_in_parallel(std::size_t count, std::size_t min_per_part,
                       const std::function<void(std::size_t, std::size_t)>& part) {
  const std::size_t most = min_per_part ? count / min_per_part : count;
  const int helpers = most >= 2 ? take_helpers(static_cast<int>(std::min<std::size_t>(
                                      most - 1, static_cast<std::size_t>(1) << 20)))
                                : 0;
  if (helpers == 0) {
    part(0, count);
    return;
  }
  const std::size_t parts = static_cast<std::size_t>(helpers) + 1;
  auto bound = [&](std::size_t i) { return count * i / parts; };
  std::vector<std::future<void>> running;
  running.reserve(parts - 1);
  std::size_t own_end = bound(1);
  for (std::size_t i = 1; i < parts; ++i) {
    try {
      running.push_back(std::async(
          std::launch::async, [&part, b = bound(i), e = bound(i + 1)] { part(b, e); }));
    } catch (const std::system_error&) {
      // No thread could start: this thread takes the rest.
      own_end = count;
      break;
    }
  }
  std::exception_ptr failed;
  try {
    part(0, bound(1));
    if (own_end > bound(1))
      part(bound(running.size() + 1), own_end);
  } catch (...) {
    failed = std::current_exception();
  }
  for (auto& f : running) {
    try {
      f.get();
    } catch (...) {
      if (!failed)
        failed = std::current_exception();
    }
  }
  free_helpers() += helpers;
  if (failed)
    std::rethrow_exception(failed);
}

} // namespace simsync::core
