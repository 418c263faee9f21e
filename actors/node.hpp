#pragma once

#include "actors/actors.hpp"
#include "config/node_config.hpp"

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

namespace simsync {

/// The actors of one running carrier node.
struct node_actors {
  std::vector<account_shard_actor> shards; ///< in the order of config.owned_shards()
  federation_actor federation;
  std::vector<peer_link_actor> links; ///< one per peer carrier
  std::uint16_t federation_port = 0;  ///< where `federation` is published
};

/// Spawns a node's shards, its federation endpoint (published on the
/// configured federation address) and a peer link per peer carrier.
caf::expected<node_actors> start_node(caf::actor_system& sys,
                                      const config::node_config& cfg);

/// Asks every actor of the node to stop and waits (at most `limit`) until
/// they have: each finishes the message it is handling, and every change it
/// acknowledged is already in Redis. Returns false if some did not stop in time.
bool stop_node(caf::actor_system& sys, const node_actors& node,
               std::chrono::milliseconds limit = std::chrono::seconds{10});

} // namespace simsync
