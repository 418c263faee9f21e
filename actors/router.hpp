#pragma once

#include "actors/actors.hpp"
#include "actors/incoming_entries.hpp"
#include "config/node_config.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace simsync {

struct router_state {
  static inline const char* name = "router";

  std::string node; ///< this node's id
  /// Every shard of the carrier by index: this node's own, and those of the
  /// sibling nodes it has joined (empty while that node is unreachable).
  std::vector<account_shard_actor> shards;
  /// The other nodes of this carrier, and their endpoints once joined.
  std::vector<config::node_entry> siblings;
  std::vector<router_actor> sibling_routers;
  std::uint64_t processed = 0; ///< outbox entries delivered here
  /// What an incoming entry must satisfy to be applied.
  entry_limits limits;
  /// The local shard whose store keeps the dead letters.
  account_shard_actor letter_keeper;
  /// This node's user directory: entries with lookups go through it.
  user_directory_actor directory;
};

/// A node's router. It joins the carrier's other nodes on their cluster
/// ports (CAF remote actors over TLS), or is joined by them, so that it can
/// route to every shard of the carrier: of two nodes, the one whose id sorts
/// first connects and says who it is, and each then asks the other for its
/// shards. A peer carrier's entries, once the federation endpoint has
/// checked their signature, come here; each goes to the shard that owns its
/// account, on this node or another node of the carrier (one request per
/// shard), and the ack goes back only after every one of those shards
/// persisted its entries. A shard's part that holds a directory entry (an
/// ask, a hold, a retirement) goes by way of `directory`, which paces each
/// peer's lookups and counts what they did. Entries that fail their checks are kept as
/// dead letters (in the store of `local`'s first shard) instead of applied. Spawn
/// detached: the federation endpoint, in the other actor system, talks to it (see
/// node.hpp).
router_actor::behavior_type router(router_actor::stateful_pointer<router_state> self,
                                   std::string node, int total_shards,
                                   std::vector<int> owned,
                                   std::vector<account_shard_actor> local,
                                   std::vector<config::node_entry> siblings,
                                   user_directory_actor directory, entry_limits limits);

} // namespace simsync
