#pragma once

// The gateway's load shedding: it counts what it sheds in the request meter
// (by reason) and tells the operator when shedding starts (the first request
// shed after a quiet second) and when it stops (the first request admitted
// after a second without shedding), not once per request.

#include "metrics/request_meter.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace simsync::net {

class load_shedding {
public:
  explicit load_shedding(std::shared_ptr<metrics::request_meter> meter);

  /// Admits a request unless `limit` are in flight already (shed: in_flight).
  bool admit(std::size_t limit);
  /// An admitted request was refused for another overload.
  void shed(metrics::shed_reason why);

  /// How long without a shed request ends a spell of shedding.
  static constexpr auto quiet = std::chrono::seconds{1};

private:
  void note(metrics::shed_reason why);

  std::shared_ptr<metrics::request_meter> meter_;
  std::atomic<bool> shedding_{false};
  std::atomic<std::int64_t> last_shed_ns_{0}; ///< steady clock
  std::atomic<std::uint64_t> shed_in_spell_{0};
};

} // namespace simsync::net
