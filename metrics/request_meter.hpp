#pragma once

// The terminal gateway's traffic, shared by the gateway (which records) and
// the introspector (which samples it once a second): requests in flight and
// the admission that sheds load beyond a limit, answers per route and status,
// latency per route, and the calls the gateway made to its node's Redis
// itself (net/local_store.hpp). Safe to use from any thread.

#include "metrics/actor_status.hpp"
#include "metrics/latency_histogram.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::metrics {

/// Why a request was shed (the `reason` label of the shed counter).
enum class shed_reason {
  in_flight,          ///< the gateway had max_in_flight requests already
  replication_behind, ///< a shared upload while replication lags (max_replication_lag)
};
inline constexpr shed_reason shed_reasons[] = {shed_reason::in_flight,
                                               shed_reason::replication_behind};
const char* to_string(shed_reason why);

class request_meter {
public:
  /// With `measured` false only admission is kept (no per-route figures).
  explicit request_meter(bool measured = true) : measured_(measured) {}

  /// Admits a request unless `limit` are already in flight; a refused request
  /// counts as shed.
  bool admit(std::size_t limit);
  /// An admitted request was refused for another overload (counts as shed).
  void shed(shed_reason why) {
    shed_[static_cast<std::size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  }

  /// An admitted request was answered with `status` after `took`. `route` is
  /// the route's pattern, e.g. "GET /v1/lines/{msisdn}/pending".
  void answered(std::string_view route, int status, std::chrono::nanoseconds took);

  std::size_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
  /// A call of the gateway's local store was answered after `took`;
  /// `error` says why it failed (null: it did not).
  void store_call(std::chrono::nanoseconds took, const std::string* error);

  struct route_sample {
    std::string route;
    std::map<int, std::uint64_t> answers; ///< status -> count
    latency_histogram latency;
  };
  struct sample {
    std::vector<route_sample> routes;                 ///< ordered by route
    std::uint64_t shed[std::size(shed_reasons)] = {}; ///< by shed_reason
    std::uint64_t in_flight = 0;
    /// The local store as an actor of the node would report itself
    /// (kind local_store; processed: its calls), none before its first call.
    std::vector<actor_status> store;
  };

  /// Everything so far (cumulative since the gateway started).
  sample take() const;

private:
  bool measured_;
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<std::uint64_t> shed_[std::size(shed_reasons)] = {};
  mutable std::mutex mutex_;
  std::map<std::string, route_sample, std::less<>> routes_;
  std::uint64_t store_calls_ = 0;
  std::string store_error_;
  latency_histogram store_latency_;
};

} // namespace simsync::metrics
