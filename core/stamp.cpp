#include "core/stamp.hpp"

#include <algorithm>

namespace simsync::core {

std::uint64_t hybrid_clock::tick(std::uint64_t physical_ms) {
  last_ = std::max(last_ + 1, physical_ms * hlc_logical_per_ms);
  return last_;
}

void hybrid_clock::observe(std::uint64_t remote_hlc) {
  last_ = std::max(last_, remote_hlc);
}

} // namespace simsync::core
