#pragma once

// An outbox entry whose cards do not open at the link (altered where they
// were stored) would fail every window the link sends it in, and so stop the
// carrier's replication to that peer for every account. It is set aside
// instead (store/lua/set_aside.lua): kept whole, with why, in the peer's
// set-aside stream for an operator, and its uids are written to the outbox
// again from the shared store, so the peer still converges. An entry sealed
// with a key the node's keyring lacks is not set aside: the keyring is what
// is wrong there, and every entry after it would go the same way.

#include "core/keyring.hpp"
#include "store/outbox.hpp"
#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simsync::store {

/// Which records of an entry read sealed (read_outbox) do not open and
/// never will (altered, no longer a sealed card, no longer a record): one
/// flag per uid, record pair of its batch. nullopt when the entry is not one
/// to set aside: all of it opens, or a record names a key `keys` lacks (the
/// key file can mend that), or its batch does not parse.
std::optional<std::vector<bool>> altered_records(const core::keyring& keys,
                                                 const outbox_entry& entry);

/// What set_aside_entry did.
struct set_aside_result {
  bool found = false;     ///< the entry was still in the outbox
  std::size_t resent = 0; ///< uids written to the outbox again, as now stored
  std::size_t broken = 0; ///< uids the shared store holds altered too: not sent
};

/// Moves `entry` (read sealed from `peer`'s outbox; `altered` from
/// altered_records) to the peer's set-aside stream with `why` and `now_ms`,
/// and writes its uids' current records to the outbox again, in one script.
caf::expected<set_aside_result>
set_aside_entry(redis_client& redis, const std::string& peer, const outbox_entry& entry,
                const std::vector<bool>& altered, const std::string& why,
                std::uint64_t now_ms);

/// An entry kept in a peer's set-aside stream, as an operator sees it: no
/// card or record of it (contact data stays out of the admin port).
struct aside_entry {
  std::string id;          ///< its id in the set-aside stream, to drop it by
  std::string why;         ///< why it was set aside
  std::uint64_t at_ms = 0; ///< when (Unix ms)
  std::string idcode;      ///< the account the entry was for
  std::string kind;        ///< as the outbox wrote it ("batch", ...)
  std::uint64_t cards = 0; ///< how many cards it held or named
};

/// Up to `limit` of `peer`'s set-aside entries, oldest first.
caf::expected<std::vector<aside_entry>>
read_set_aside(redis_client& redis, const std::string& peer, std::size_t limit);

/// Drops one of `peer`'s set-aside entries once an operator has found why
/// its cards were damaged; false if there was none with that id.
caf::expected<bool> drop_set_aside(redis_client& redis, const std::string& peer,
                                   const std::string& id);

} // namespace simsync::store
