#pragma once

#include "actors/actors.hpp"
#include "actors/lookup_pacing.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simsync {

struct user_directory_state {
  static inline const char* name = "user_directory";

  /// A part waiting for its peer's pace.
  struct paced_part {
    std::string origin;
    account_shard_actor shard;
    std::vector<store::outbox_entry> entries;
    caf::typed_response_promise<store::replicate_result> rp;
  };

  lookup_pacer pacer;
  std::uint64_t next_part = 0;
  std::map<std::uint64_t, paced_part> waiting;
  std::uint64_t processed = 0; ///< parts applied
  std::string last_error;
  /// What the directory entries did, by outcome (actor_status::directory).
  std::map<std::string, std::uint64_t> outcomes;
  /// Lookups that waited, by peer (actor_status::paced).
  std::map<std::string, std::uint64_t> paced;
};

/// A node's user directory (see user_directory_actor). Spawned in the cluster
/// actor system; it only waits for answers, so it needs no thread of its own.
user_directory_actor::behavior_type
user_directory(user_directory_actor::stateful_pointer<user_directory_state> self,
               lookup_limits limits);

} // namespace simsync
