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

/// A value sealed whole (user info, a line's number) as a write should store
/// it: sealed with the writer key of `keys`, the ring the write holds until
/// Redis answers. One sealed elsewhere (another node's gateway, or a
/// subscriber record read before the writer changed) is sealed again, so that
/// no write can land an older key's value behind a pass that has looked.
/// Kept as it is where that key sealed it, where it is not a sealed value, or
/// where it does not open (a pass counts it as left).
std::string sealed_by_writer(const core::keyring& keys, std::string value,
                             const std::string& idcode);

/// One step of a pass, from `cursor` ("0" starts a pass).
caf::expected<reseal_step> reseal_step_at(redis_client& redis, const core::keyring& keys,
                                          const std::string& cursor);

} // namespace simsync::store
