#include "core/stamp.hpp"

#include <algorithm>
#include <chrono>

namespace simsync::core {

std::uint64_t unix_now_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
}

std::uint64_t hybrid_clock::tick(std::uint64_t physical_ms) {
  last_ = std::max(last_ + 1, physical_ms * hlc_logical_per_ms);
  return last_;
}

void hybrid_clock::observe(std::uint64_t remote_hlc) {
  last_ = std::max(last_, remote_hlc);
}

} // namespace simsync::core
