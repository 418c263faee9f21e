#pragma once

#include "actors/actors.hpp"
#include "metrics/node_snapshot.hpp"
#include "metrics/request_meter.hpp"
#include "metrics/snapshot_board.hpp"
#include "store/redis_client.hpp"

#include <caf/stateful_actor.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace simsync {

struct introspector_state {
  static inline const char* name = "introspector";

  std::string carrier;
  std::string node_id;
  node_actor node;
  store::redis_endpoint redis_at;
  std::optional<store::redis_client> redis;
  std::vector<std::string> peers;                  ///< whose dead letters it counts
  std::shared_ptr<metrics::request_meter> gateway; ///< null without a gateway
  std::shared_ptr<metrics::snapshot_board> board;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::shared_ptr<const metrics::node_snapshot> previous;
};

/// How often the introspector samples: the console's refresh and the
/// interval its rates are averaged over.
constexpr auto introspection_interval = std::chrono::seconds{1};

/// Spawn detached: it reads Redis's INFO with the sync client. It asks the
/// node for every actor's status (one message per actor per interval, which
/// is the whole cost of collecting besides the actors' own timers).
introspector_actor::behavior_type
introspector(introspector_actor::stateful_pointer<introspector_state> self,
             std::string carrier, std::string node_id, node_actor node,
             store::redis_endpoint redis_at, std::vector<std::string> peers,
             std::shared_ptr<metrics::request_meter> gateway,
             std::shared_ptr<metrics::snapshot_board> board);

} // namespace simsync
