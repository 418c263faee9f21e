#include "actors/replication_backlog.hpp"

#include "core/error.hpp"
#include "core/stamp.hpp"

#include <algorithm>

namespace simsync {

replication_backlog::replication_backlog(std::vector<std::string> peers)
    : peers_(std::move(peers)),
      oldest_ms_(std::make_unique<std::atomic<std::uint64_t>[]>(peers_.size())) {
  for (std::size_t i = 0; i < peers_.size(); ++i)
    oldest_ms_[i].store(link_down, std::memory_order_relaxed);
}

void replication_backlog::waiting_since(std::size_t link, std::uint64_t unix_ms) {
  oldest_ms_[link].store(unix_ms == link_down ? link_down - 1 : unix_ms,
                         std::memory_order_relaxed);
}

void replication_backlog::down(std::size_t link) {
  oldest_ms_[link].store(link_down, std::memory_order_relaxed);
}

replication_backlog::worst_link
replication_backlog::furthest_behind(std::uint64_t now_unix_ms) const {
  worst_link worst;
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    auto oldest = oldest_ms_[i].load(std::memory_order_relaxed);
    // The stream id comes from Redis's clock, which may run a little ahead.
    if (oldest == link_down || oldest == 0 || oldest >= now_unix_ms)
      continue;
    if (now_unix_ms - oldest > worst.lag_ms) {
      worst.peer = peers_[i];
      worst.lag_ms = now_unix_ms - oldest;
    }
  }
  return worst;
}

std::chrono::milliseconds
replication_backlog::retry_after(std::uint64_t lag_ms, std::chrono::milliseconds limit) {
  auto bound = static_cast<std::uint64_t>(limit.count());
  auto beyond = std::chrono::milliseconds{lag_ms > bound ? lag_ms - bound : 0};
  return std::clamp(beyond, std::chrono::milliseconds{1000}, max_retry_after);
}

caf::error replication_backlog::refusal(std::chrono::milliseconds limit,
                                        std::uint64_t now_unix_ms) const {
  auto bound = static_cast<std::uint64_t>(limit.count());
  if (bound == 0)
    return caf::none;
  auto worst = furthest_behind(now_unix_ms);
  if (worst.lag_ms <= bound)
    return caf::none;
  auto wait = retry_after(worst.lag_ms, limit);
  return caf::make_error(ec::replication_behind,
                         "replication to " + worst.peer + " is " +
                             std::to_string(worst.lag_ms) + " ms behind (limit " +
                             std::to_string(bound) + " ms); retry after, in ms:",
                         std::to_string(wait.count()));
}

caf::error replication_backlog::refusal_now(std::chrono::milliseconds limit) const {
  return refusal(limit, core::unix_now_ms());
}

} // namespace simsync
