#pragma once

#include "actors/actors.hpp"
#include "actors/incoming_entries.hpp"
#include "config/node_config.hpp"
#include "metrics/latency_histogram.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simsync {

struct federation_state {
  static inline const char* name = "federation";

  /// Every shard of the carrier by index: this node's own, and those of the
  /// sibling nodes it has joined (empty while that node is unreachable).
  std::vector<account_shard_actor> shards;
  /// The other nodes of this carrier, and their endpoints once joined.
  std::vector<config::node_entry> siblings;
  std::vector<federation_actor> sibling_endpoints;
  std::uint64_t processed = 0; ///< outbox entries delivered here
  /// What an incoming entry must satisfy to be applied.
  entry_limits limits;
  /// The local shard whose store keeps the dead letters.
  account_shard_actor letter_keeper;
  /// From a peer's delivery to its acknowledgement, when measured.
  std::optional<metrics::latency_histogram> latency;
};

/// A node's endpoint. Peer carriers deliver their outbox entries here, many
/// at a time; each goes to the shard that owns its account, on this node or a
/// sibling node of the same carrier (one request per shard), and the ack goes
/// back only after every one of those shards persisted its entries. The node
/// joins its sibling nodes (CAF remote actors) so that it can route to every
/// shard of the carrier. Entries that fail their checks are kept as dead
/// letters (in the store of `local`'s first shard) instead of applied.
federation_actor::behavior_type
federation(federation_actor::stateful_pointer<federation_state> self, int total_shards,
           std::vector<int> owned, std::vector<account_shard_actor> local,
           std::vector<config::node_entry> siblings, entry_limits limits, bool measured);

} // namespace simsync
