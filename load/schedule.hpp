#pragma once
// The open-loop schedule of the interactive scenario: edit i is due at
// start + i / rate, whatever happened to the edits before it. Latency is
// measured from the due time, so a stalled server or a saturated client
// shows up as latency instead of silently lowering the offered rate
// (no coordinated omission).

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace simsync::load {

using clock = std::chrono::steady_clock;

class open_loop_schedule {
public:
  /// `rate` per second (> 0) for `duration`, starting at `start`.
  open_loop_schedule(double rate, std::chrono::nanoseconds duration,
                     clock::time_point start);

  /// How many events the whole schedule holds.
  std::uint64_t total() const { return total_; }
  /// When event i (0-based) is due.
  clock::time_point due(std::uint64_t i) const;
  /// How many events are due at `now` (events 0..n-1), at most total().
  std::uint64_t due_by(clock::time_point now) const;
  double rate() const { return rate_; }
  clock::time_point start() const { return start_; }

private:
  double rate_;
  clock::time_point start_;
  std::uint64_t total_;
};

/// A list of rates as the command line gives it: "500,1000,2000" or a
/// geometric step-up "500..8000x2" (500, 1000, 2000, 4000, 8000). Empty and
/// an error text when the text is not one of those.
std::vector<double> parse_rates(const std::string& text, std::string* error);

} // namespace simsync::load
