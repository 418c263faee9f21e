#pragma once

// The terminal HTTP API inside carrierd: a RESTinio server on its own I/O
// loop (one thread). Each request is an exchange on that loop
// (net/exchange.hpp): a phone's writes and reads of an account of this node
// go to the node's Redis from the loop itself (net/local_store.hpp), the rest
// to shard actors. No thread waits on a connection or a request.

#include "actors/actors.hpp"
#include "actors/node.hpp"
#include "config/node_config.hpp"
#include "metrics/request_meter.hpp"
#include "net/limits.hpp"

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace simsync::net {

class terminal_gateway {
public:
  /// Starts serving on cfg.gateway for `node`: through its router (which
  /// knows every shard of the carrier) and, for its own shards, straight to
  /// its Redis. Fails if the address cannot be bound. The gateway records
  /// its traffic in `meter` (a new one when none is given).
  static caf::expected<std::unique_ptr<terminal_gateway>>
  start(caf::actor_system& sys, const config::node_config& cfg, const running_node& node,
        gateway_limits limits = {},
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

/// The routes the gateway serves, as "METHOD /path" (the names its metrics
/// use), read from the table the server is made from: docs/openapi.json is
/// checked against this list, so the description cannot drift from the code.
std::vector<std::string> terminal_route_names();

} // namespace simsync::net
