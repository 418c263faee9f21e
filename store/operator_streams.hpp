#pragma once

// Streams a node keeps for its operator rather than for the flows: a peer's
// dead letters (store/dead_letters.hpp) and the outbox entries set aside
// (store/set_aside.hpp). Each keeps about its newest kept_for_operator
// entries (XADD MAXLEN ~), so that a peer sending garbage, or damage found
// at rest, cannot fill Redis; the admin port lists at most as many at once.

#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::store {

inline constexpr std::size_t kept_for_operator = 10'000;

/// Drops the entry `id` of stream `key` once an operator has dealt with it;
/// false if the stream holds none of that id (or `id` is not a stream id).
caf::expected<bool> drop_kept_entry(redis_client& redis, const std::string& key,
                                    const std::string& id);

/// Drops every entry the operator streams of `peers` (dead letters, entries
/// set aside) keep about the account `idcode`: what an account's removal
/// leaves there otherwise, its cards sealed, until the streams' trim or an
/// operator takes it. Read a page at a time, so that a full stream does not
/// hold Redis for long. Returns how many were dropped.
caf::expected<std::size_t> drop_account_entries(redis_client& redis,
                                                const std::vector<std::string>& peers,
                                                const std::string& idcode);

} // namespace simsync::store
