#pragma once

// How fast a peer carrier may look up this carrier's directory. An ask (or a
// hold) about an identification code tells the peer whether the person holds
// an account here, so a peer that computes codes could probe for them: each
// peer gets a budget of lookups per second, with a burst. A lookup over it
// is delayed, not refused: it travels in the peer's durable outbox, and a
// refused window would come back whole (and a window larger than the budget
// would never pass), while a delay only slows that one peer's link.
// Pure, so it is unit-tested (tests/unit/actors/lookup_pacing_test.cpp).

#include <chrono>
#include <cstddef>
#include <map>
#include <string>

namespace simsync {

struct lookup_limits {
  /// Lookups a peer may make per second once its burst is spent
  /// ([federation] lookups_per_second).
  double per_second = 200;
  /// Lookups a peer may make at once ([federation] lookup_burst).
  double burst = 2000;
  /// The longest a delivery waits: shorter than a peer link's wait for its
  /// acknowledgement (60 s), so a link resending after a timeout does not
  /// pile up ever longer delays.
  std::chrono::milliseconds max_delay{30'000};
};

class lookup_pacer {
public:
  using clock = std::chrono::steady_clock;

  explicit lookup_pacer(lookup_limits limits = {}) : limits_(limits) {}

  /// Takes `count` lookups from `peer` arriving at `now`, and says how long
  /// they wait before they are answered (zero within the budget, and for no
  /// lookups at all).
  std::chrono::milliseconds admit(const std::string& peer, std::size_t count,
                                  clock::time_point now);

private:
  /// A token bucket: full (burst) at first, refilled at per_second, and in
  /// debt (negative) while lookups wait.
  struct bucket {
    double tokens = 0;
    clock::time_point at;
  };

  lookup_limits limits_;
  std::map<std::string, bucket> buckets_;
};

} // namespace simsync
