#pragma once

// The admin port (loopback by default). Open to whoever reaches it: GET
// /admin/actors (the node's snapshot as JSON, for tools/console) and GET
// /metrics (Prometheus text format), both read from the introspector's
// latest snapshot without waiting on an actor, so a backed-up node still
// answers its operator at once; GET /healthz and /readyz (net/health.hpp).
// Behind the admin credential: the subscriber registry's writes
// (net/subscriber_admin.hpp), dead letters and keys.

#include "actors/actors.hpp"
#include "actors/node.hpp"
#include "config/node_config.hpp"
#include "metrics/snapshot_board.hpp"

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include <memory>

namespace simsync::net {

class admin_server {
public:
  /// Starts serving on cfg.admin, reaching the carrier's shards through the
  /// node's router. Without a `board` (metrics off) the snapshot routes
  /// answer 404. Fails if the address cannot be bound.
  static caf::expected<std::unique_ptr<admin_server>>
  start(caf::actor_system& sys, const config::node_config& cfg, const running_node& node,
        std::shared_ptr<metrics::snapshot_board> board);

  void stop();
  ~admin_server();

  struct impl;

private:
  explicit admin_server(std::unique_ptr<impl> self);
  std::unique_ptr<impl> impl_;
};

} // namespace simsync::net
