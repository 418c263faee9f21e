#pragma once

// Entries a peer carrier sent that this carrier would not apply (a stamp far
// in the future, a card that does not parse, a malformed idcode...): kept
// whole, with the reason, in a stream per peer, so that one bad entry never
// blocks the link and an operator can see what came and why it was refused.

#include "core/keyring.hpp"
#include "store/outbox.hpp"
#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace simsync::store {

/// An entry as it arrived, and why it was not applied.
struct dead_letter {
  outbox_entry entry;
  std::string reason;
};

/// A dead letter as the stream keeps it.
struct kept_letter {
  std::string id; ///< its id in the stream, to drop it by
  dead_letter letter;
  std::uint64_t at_ms = 0; ///< when it was kept (Unix ms)
};

/// Appends `letters` from `peer` at `now_ms`, in one round trip, each batch
/// sealed with `keys` (bound to the entry's idcode). The stream keeps about
/// the newest kept_for_operator (store/operator_streams.hpp).
caf::expected<std::uint64_t>
keep_dead_letters(redis_client& redis, const core::keyring& keys, const std::string& peer,
                  const std::vector<dead_letter>& letters, std::uint64_t now_ms);

/// Up to `limit` of `peer`'s dead letters, oldest first, with stream ids from
/// `from` to `to` (inclusive; "-" and "+" for either end), their batches
/// opened. A batch that does not open is left empty and its reason says why.
caf::expected<std::vector<kept_letter>>
read_dead_letters(redis_client& redis, const core::keyring& keys, const std::string& peer,
                  std::size_t limit, const std::string& from = "-",
                  const std::string& to = "+");

/// Drops one of `peer`'s dead letters; false if there was none with that id.
caf::expected<bool> drop_dead_letter(redis_client& redis, const std::string& peer,
                                     const std::string& id);

} // namespace simsync::store
