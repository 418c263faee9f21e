#pragma once

#include "actors/actors.hpp"
#include "store/reconnecting_store.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simsync {

/// Applies a delivery the federation endpoint checked and sealed (changes
/// alone, for accounts of this node's shards) in one script call
/// (`apply_incoming`); returns the last entry's id, the acknowledgement. The
/// endpoint's own apply and the applier's are this one.
caf::expected<std::string> apply_delivery(store::reconnecting_store& store,
                                          const store::sealed_delivery& delivery);

struct federation_applier_state {
  static inline const char* name = "federation_applier";

  /// Its own connection: it blocks on Redis while the endpoint checks.
  std::optional<store::reconnecting_store> store;
  std::uint64_t processed = 0; ///< entries applied
  std::string last_error;
};

/// The federation endpoint hands it a checked and sealed delivery when the
/// endpoint has more waiting or the applier is still busy: the endpoint then
/// verifies, checks and seals the next delivery while Redis applies this one,
/// where alone it did one after the other. It applies what it is given in the
/// order it is given.
/// Spawn detached, in the federation actor system: it blocks on Redis.
federation_applier_actor::behavior_type federation_applier(
    federation_applier_actor::stateful_pointer<federation_applier_state> self,
    std::string carrier, store::redis_endpoint redis_at,
    std::shared_ptr<const core::shared_keyring> keys, store::history_policy history);

} // namespace simsync
