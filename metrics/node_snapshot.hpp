#pragma once

// What a node shows about itself: a snapshot taken once a second by the
// introspector, served by the admin port as JSON (/admin/actors, for the
// console) and in the Prometheus text format (/metrics). Rates and recent
// percentiles come from two consecutive samples of cumulative figures.

#include "metrics/actor_status.hpp"
#include "metrics/process_sample.hpp"
#include "metrics/request_meter.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace simsync::metrics {

/// The node's Redis as the introspector sees it.
struct redis_view {
  std::string address;
  bool up = false;
  std::string error;     ///< why it is not up
  double latency_ms = 0; ///< one PING round trip
  std::uint64_t used_memory = 0;
  std::uint64_t commands = 0; ///< total_commands_processed
  std::uint64_t keys = 0;
  double commands_per_s = 0;
  /// Entries each peer carrier delivered that failed their checks and wait
  /// for an operator (the deadletter:<peer> streams), by peer.
  std::map<std::string, std::uint64_t> dead_letters;
  /// This node's own outbox entries for each peer that were set aside,
  /// their cards altered where they were stored (the setaside:<peer>
  /// streams, store/set_aside.hpp), by peer.
  std::map<std::string, std::uint64_t> set_aside;
};

/// Raw figures read at one moment, all cumulative.
struct node_sample {
  std::string carrier;
  std::string node;
  std::string version;
  double uptime_s = 0;
  std::int64_t unix_ms = 0;
  std::chrono::steady_clock::time_point at;
  std::vector<actor_status> actors;
  redis_view redis;
  std::optional<request_meter::sample> gateway;
  process_sample process; ///< carrierd's own, from the operating system
};

struct actor_view {
  actor_status status;
  double rate = 0;   ///< messages per second over the last interval
  double p50_ms = 0; ///< time per message over the last interval
  double p99_ms = 0;
};

struct route_view {
  request_meter::route_sample total;
  double rate = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};

struct gateway_view {
  std::vector<route_view> routes;
  std::uint64_t shed = 0; ///< for every reason
  std::uint64_t shed_by_reason[std::size(shed_reasons)] = {};
  std::uint64_t in_flight = 0;
  double rate = 0; ///< requests answered per second, all routes
};

struct node_snapshot {
  /// The node, its Redis and when; its actors and gateway were moved into
  /// `actors` and `gateway`, where the next summary finds their totals.
  node_sample sample;
  double interval_s = 0; ///< since the previous sample; 0 for the first
  std::vector<actor_view> actors;
  std::optional<gateway_view> gateway;
};

/// The snapshot of `now`, with rates and percentiles over the time since
/// `previous` (none for the first sample: rates 0, percentiles since start).
node_snapshot summarize(node_sample now, const node_snapshot* previous);

/// /admin/actors: {"carrier","node","version","up":true,"uptime_s",…,
/// "actors":[{"name","kind","mailbox","processed","rate","p50_ms","p99_ms",…}],
/// "links":[{"peer","state","outbox","lag_ms","rtt_ms",…}],"redis":{…},"gateway":{…}}
nlohmann::json to_json(const node_snapshot& snapshot);

} // namespace simsync::metrics
