#pragma once

// The admin port's health checks, for systemd, a load balancer or an
// orchestrator. GET /healthz: the process answers HTTP (nothing else is
// asked). GET /readyz: the node can serve phones: its Redis answers PING,
// and its router, federation endpoint, user directory and every shard it
// owns answer their supervisor; otherwise 503 with the reasons. Both are
// open like /metrics: they say what is wrong, never a secret.

#include "actors/actors.hpp"
#include "net/route_table.hpp"
#include "store/redis_client.hpp"

#include <caf/actor_system.hpp>

#include <nlohmann/json.hpp>

#include <vector>

namespace simsync::net {

/// What GET /readyz asks.
struct readiness_probe {
  caf::actor_system* sys = nullptr;
  node_actor node;
  store::redis_endpoint redis_at;
  std::vector<int> shards; ///< the node's own
};

/// Asks each in turn (it blocks, up to a few seconds): {"ready": bool,
/// "reasons": [...], "checked": {...}}.
nlohmann::json check_readiness(const readiness_probe& probe);

/// GET /readyz as a route of the admin port's table.
route_spec readiness_route(readiness_probe probe);

} // namespace simsync::net
