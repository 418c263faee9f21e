#pragma once

// What a node's Redis promises about what it acknowledged, read back from
// the server at start (carrierd logs it): the promise "nothing acknowledged
// is lost" holds only with the append-only file on and fsynced every write.

#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <string>

namespace simsync::store {

struct redis_durability {
  bool aof_enabled = false; ///< INFO persistence: aof_enabled
  /// CONFIG GET appendfsync: always, everysec or no; empty when the server
  /// refuses CONFIG to this user (carrierd's user is refused it: it is a
  /// dangerous command).
  std::string appendfsync;

  /// Every write on disk before it is acknowledged (as far as it can tell).
  bool keeps_every_write() const {
    return aof_enabled && (appendfsync.empty() || appendfsync == "always");
  }
};

/// One round trip.
caf::expected<redis_durability> read_durability(redis_client& redis);

} // namespace simsync::store
