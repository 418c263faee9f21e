#pragma once

#include "actors/actors.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace simsync {

struct federation_state {
  static inline const char* name = "federation";

  int total_shards = 0;                    ///< shards of the whole carrier
  std::vector<int> owned;                  ///< shard indices this node owns
  std::vector<account_shard_actor> shards; ///< by position in `owned`
  std::uint64_t processed = 0;
};

/// Receives peer carriers' outbox entries and hands each to the shard that
/// owns its account; the ack goes back only after that shard persisted it.
federation_actor::behavior_type
federation(federation_actor::stateful_pointer<federation_state> self, int total_shards,
           std::vector<int> owned, std::vector<account_shard_actor> shards);

} // namespace simsync
