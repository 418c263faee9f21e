#pragma once

// What a node checks in every entry a peer carrier delivers, before anything
// is written: a peer is another company's system, and one malformed or
// hostile entry must neither reach the store nor hold up the others.

#include "config/node_config.hpp"
#include "store/account_store.hpp"
#include "store/outbox.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace simsync {

struct entry_limits {
  /// How far ahead of this node's clock a stamp may be.
  std::chrono::milliseconds max_clock_skew{300'000};
  /// The largest card (and uid), as the terminal API takes it.
  std::size_t max_card_bytes = 1u << 20;
};

/// The limits a node's configuration sets: what the router applies to every
/// delivery and the admin port to a dead letter it retries.
entry_limits entry_limits_of(const config::node_config& cfg);

/// Why `entry` must not be applied at `now_ms` (Unix ms), or empty if it may:
/// - the idcode is not 64 lower-case hex digits;
/// - a directory entry (ask, hold, retire) carries a batch; a batch is not pairs of
///   (uid, record) netstrings, or holds none;
/// - a uid is empty or longer than a card may be;
/// - a record does not parse; its stamp (or the stamp a tombstone removes)
///   is beyond what the store's scripts represent exactly (2^53) or further
///   ahead of now than max_clock_skew;
/// - a live card is larger than max_card_bytes or is not one vCard; a
///   compressed one (core/card_compression.hpp) is expanded to be checked,
///   and refused if it does not expand or is larger than such a card
///   compresses to.
std::string entry_refusal(const store::outbox_entry& entry, std::uint64_t now_ms,
                          const entry_limits& limits);

/// Logs the changes of `origin` the store refused because `origin` is not a
/// sibling of their account. A hostile peer can repeat them with every
/// delivery, so it logs at most one line a second.
void warn_not_sibling(const std::string& origin, const store::replicate_result& applied);

} // namespace simsync
