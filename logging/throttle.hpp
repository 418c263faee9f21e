#pragma once

// At most one line per interval for an event that can repeat as fast as
// requests arrive (a client hitting a limit, a failing route): the next
// line written says how many were left out, so a flood neither fills the
// disk nor goes unseen. Safe to use from any thread.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

namespace simsync::logging {

class throttle {
public:
  explicit throttle(std::chrono::milliseconds interval = std::chrono::seconds{1})
      : interval_(interval) {}

  /// The number of lines left out since the last one written, when this
  /// one may be written now; nullopt when it is to be left out.
  std::optional<std::uint64_t> admit() {
    std::lock_guard guard{mutex_};
    auto now = std::chrono::steady_clock::now();
    if (written_ && now - last_ < interval_) {
      ++left_out_;
      return std::nullopt;
    }
    written_ = true;
    last_ = now;
    auto out = left_out_;
    left_out_ = 0;
    return out;
  }

private:
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  bool written_ = false;
  std::chrono::steady_clock::time_point last_;
  std::uint64_t left_out_ = 0;
};

} // namespace simsync::logging
