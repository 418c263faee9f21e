#include "net/address_limiter.hpp"

namespace simsync::net {

std::uint64_t address_limiter::admit(const std::string& address,
                                     std::chrono::steady_clock::time_point now) {
  std::lock_guard<std::mutex> guard{mtx_};
  // Ended windows are dropped once a window, so the map holds only the
  // addresses seen lately, however many have come and gone.
  if (now - last_sweep_ >= window_) {
    for (auto it = counts_.begin(); it != counts_.end();)
      it = now - it->second.started >= window_ ? counts_.erase(it) : std::next(it);
    last_sweep_ = now;
  }
  auto& w = counts_[address];
  if (w.count == 0 || now - w.started >= window_)
    w = window_count{now, 0};
  if (w.count >= per_window_) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(w.started + window_ - now);
    return static_cast<std::uint64_t>(std::max<long long>(left.count(), 1));
  }
  ++w.count;
  return 0;
}

} // namespace simsync::net
