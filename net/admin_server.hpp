#pragma once

// The admin port (DESIGN.md §7), loopback by default: GET /admin/actors (the
// node's snapshot as JSON, for tools/console) and GET /metrics (Prometheus
// text format). Both read the introspector's latest snapshot; neither waits
// on an actor, so a backed-up node still answers its operator at once.

#include "config/node_config.hpp"
#include "metrics/snapshot_board.hpp"

#include <caf/expected.hpp>

#include <memory>

namespace simsync::net {

class admin_server {
public:
  /// Starts serving on cfg.admin. Fails if the address cannot be bound.
  static caf::expected<std::unique_ptr<admin_server>>
  start(const config::node_config& cfg, std::shared_ptr<metrics::snapshot_board> board);

  void stop();
  ~admin_server();

  struct impl;

private:
  explicit admin_server(std::unique_ptr<impl> self);
  std::unique_ptr<impl> impl_;
};

} // namespace simsync::net
