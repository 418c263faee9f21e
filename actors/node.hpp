#pragma once

#include "actors/actors.hpp"
#include "actors/node_systems.hpp"
#include "actors/replication_backlog.hpp"
#include "config/node_config.hpp"
#include "core/signature.hpp"
#include "store/redis_client.hpp"

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>
#include <caf/stateful_actor.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace simsync {

struct node_state {
  static inline const char* name = "node";

  /// A supervised actor: a shard (index = shard number) or a peer link
  /// (index = position in `peers`).
  struct child {
    bool is_shard = true;
    int32_t index = 0;
    caf::actor handle;
    std::uint32_t restarts = 0;
    std::chrono::milliseconds backoff{0};
    std::string last_error;
  };

  std::string carrier;
  /// Where the peer links run (see node_systems.hpp); the shards run in the
  /// node's own, cluster system.
  caf::actor_system* links_system = nullptr;
  std::optional<core::signature_key> signing_key; ///< the peer links sign with it
  store::redis_endpoint redis_at;
  std::vector<config::peer_entry> peers;
  std::shared_ptr<replication_backlog> backlog; ///< the peer links report here
  /// Shared uploads are refused beyond this lag (config: max_replication_lag).
  std::chrono::milliseconds max_replication_lag{0};
  /// A peer link's window waits this long for its acknowledgements (config:
  /// peer_ack_timeout).
  std::chrono::seconds peer_ack_timeout{60};
  store::history_policy history; ///< what each store's history keeps (config: [history])
  std::shared_ptr<core::shared_keyring> keys; ///< the shards seal and open with them
  bool measured = true; ///< actors time their messages (config: metrics)
  /// An actor the node cannot do without (the router, the federation
  /// endpoint, the user directory): never restarted; when one goes down the
  /// node stops, carrierd exits 1, and its supervisor (systemd, or the next
  /// tools/cluster up) starts it again.
  struct essential {
    const char* kind; ///< also its name in the status
    caf::actor handle;
  };
  std::vector<essential> essentials;
  router_actor router; ///< also among the essentials: told of restarted shards
  std::vector<child> children;
  bool stopping = false;
  std::size_t still_running = 0; ///< children not yet down while stopping
};

/// A running node: its supervisor and its router, which routes to every
/// shard of the carrier (what the gateway talks to).
struct running_node {
  node_actor supervisor;
  router_actor router;
  /// The node's keys for data at rest, shared by its shards and gateways.
  std::shared_ptr<core::shared_keyring> keys;
  /// What the node's shards write with, for the gateway's writes to them
  /// (net/local_store.hpp): their Redis, history, and replication's lag.
  store::redis_endpoint redis_at;
  store::history_policy history;
  std::shared_ptr<const replication_backlog> backlog;
  std::chrono::milliseconds max_replication_lag{0};
};

/// Spawns a node across its actor systems (node_systems.hpp): in the cluster
/// system its shards, its user directory and its router (published on its
/// cluster address, if it has one) and the node actor that supervises
/// everything; in the
/// federation system its federation endpoint (published on its federation
/// address); in the links system a peer link per peer carrier. Fails if a
/// key does not parse or an address cannot be bound.
caf::expected<running_node> start_node(node_systems systems,
                                       const config::node_config& cfg);

/// Stops the node, which stops its actors first: each finishes the message
/// it is handling, and everything acknowledged is already in Redis. Waits at
/// most `limit`; returns false if the node did not stop in time.
bool stop_node(caf::actor_system& sys, const node_actor& node,
               std::chrono::milliseconds limit = std::chrono::seconds{10});

} // namespace simsync
