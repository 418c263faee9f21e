#include "actors/lookup_pacing.hpp"

#include <algorithm>
#include <cmath>

namespace simsync {

std::chrono::milliseconds lookup_pacer::admit(const std::string& peer, std::size_t count,
                                              clock::time_point now) {
  // Entries that are no lookups (retirements, batches) never wait, not even
  // behind lookups of the same peer that do.
  if (count == 0)
    return std::chrono::milliseconds{0};
  auto [it, fresh] = buckets_.try_emplace(peer, bucket{limits_.burst, now});
  auto& b = it->second;
  if (!fresh && now > b.at) {
    std::chrono::duration<double> elapsed = now - b.at;
    b.tokens = std::min(limits_.burst, b.tokens + elapsed.count() * limits_.per_second);
    b.at = now;
  }
  auto max_debt =
      limits_.per_second * std::chrono::duration<double>(limits_.max_delay).count();
  b.tokens = std::max(-max_debt, b.tokens - static_cast<double>(count));
  if (b.tokens >= 0)
    return std::chrono::milliseconds{0};
  return std::chrono::milliseconds{
      static_cast<std::int64_t>(std::ceil(-b.tokens / limits_.per_second * 1000))};
}

} // namespace simsync
