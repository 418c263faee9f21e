#pragma once

// The terminal HTTP API (DESIGN.md §7) inside carrierd: a RESTinio server on
// its own I/O thread whose handlers hand each request to a short-lived CAF
// actor and return at once; the actor asks the account's shard and answers
// when the shard replies. No thread waits on a connection or a request.

#include "actors/actors.hpp"
#include "config/node_config.hpp"
#include "metrics/request_meter.hpp"
#include "net/limits.hpp"

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <memory>

namespace simsync::net {

class terminal_gateway {
public:
  /// Starts serving on cfg.gateway, routing through `router` (the node's
  /// endpoint, which knows every shard of the carrier). Fails if the
  /// address cannot be bound. The gateway records its traffic in `meter`
  /// (a new one when none is given).
  static caf::expected<std::unique_ptr<terminal_gateway>>
  start(caf::actor_system& sys, const config::node_config& cfg, router_actor router,
        std::shared_ptr<core::shared_keyring> keys, gateway_limits limits = {},
        std::shared_ptr<metrics::request_meter> meter = nullptr);

  /// Stops accepting, then waits up to `limit` for the requests in flight
  /// to be answered. Returns false if some were not.
  bool stop(std::chrono::milliseconds limit = std::chrono::seconds{10});

  ~terminal_gateway();

  struct impl;

private:
  explicit terminal_gateway(std::unique_ptr<impl> self);
  std::unique_ptr<impl> impl_;
};

} // namespace simsync::net
