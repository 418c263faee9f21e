#pragma once

// Key rotation's second half: once every node of a carrier seals with a new
// writer key, a pass over each node's Redis seals again every value an older
// key sealed, so that the older key can leave the keyring. The pass walks the
// keyspace in steps (SCAN), each a few keys, so the node keeps serving;
// every write is conditional on the value being unchanged since it was read.

#include "core/keyring.hpp"
#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace simsync::store {

/// What one step of a re-seal pass looked at and did.
struct reseal_step {
  std::string cursor = "0";   ///< where the next step starts; "0": the pass is over
  std::uint64_t scanned = 0;  ///< keys looked at
  std::uint64_t resealed = 0; ///< values sealed again with the writer key
  /// Values changed by a flow while this step read them: not written (the
  /// flow's own write is sealed with the writer; the next pass checks).
  std::uint64_t changed = 0;
  /// Values still sealed with another key, by key id: sealed with a key the
  /// ring lacks, or outbox entries, which leave as their peer link sends them.
  std::map<core::keyring::key_id, std::uint64_t> left;
};

/// One step of a pass, from `cursor` ("0" starts a pass).
caf::expected<reseal_step> reseal_step_at(redis_client& redis, const core::keyring& keys,
                                          const std::string& cursor);

} // namespace simsync::store
