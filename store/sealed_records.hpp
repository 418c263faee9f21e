#pragma once

// The store keeps every card compressed (core/card_compression.hpp) and sealed
// under its carrier's keyring, bound to the account (the idcode is the sealing
// context): in the shared store, private backups, history and outbox entries
// alike. A record's head (stamp, content
// hash, origin) stays clear, so the scripts compare, order and move records
// without reading a card; the hash is taken before sealing. Cards are sealed
// on the way in (an upload, an entry from a peer) and opened on the way out
// (a fetch, a restore read). An entry for a peer leaves unsealed but still
// compressed when the peer takes that form (TLS protects it on the wire and
// the peer seals it with its own keys), so a card is compressed once, where
// it is first stored.

#include "core/keyring.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::store {

/// `card` compressed and sealed, bound to the account `idcode`: a record's
/// last part as the store keeps it.
std::string seal_card(const core::keyring& keys, std::string_view card,
                      std::string_view idcode);

/// The card seal_card() sealed (or one sealed before cards were compressed);
/// nullopt if it does not open (see why_unopened).
std::optional<std::string> open_sealed_card(const core::keyring& keys,
                                            std::string_view sealed,
                                            std::string_view idcode);

/// `record` with its card sealed, compressed first unless it is already (a
/// peer that takes compressed cards is sent them as its peer stored them,
/// which the node checked expand: actors/incoming_entries.hpp); a tombstone
/// (which holds no card) as it is. nullopt if `record` is not a record.
std::optional<std::string> seal_record(const core::keyring& keys, std::string_view record,
                                       std::string_view idcode);

/// `record` with its card opened and expanded: the card as it came; a
/// tombstone as it is. nullopt if it is not a record or its card does not
/// open (see why_unopened).
std::optional<std::string> open_record(const core::keyring& keys, std::string_view record,
                                       std::string_view idcode);

/// `record` with its card sealed again with the writer key of `keys`
/// (compressed first unless it is already: seal_record), its head as it is;
/// a tombstone as it is. nullopt if it is not a record or
/// its card does not open. How a key rotation reseals what the store keeps.
std::optional<std::string> resealed_record(const core::keyring& keys,
                                           std::string_view record,
                                           std::string_view idcode);

/// `record` with its card unsealed but left as stored (compressed, or as it
/// came if it was stored before cards were compressed); a tombstone as it is.
/// nullopt if it is not a record or its card does not open.
std::optional<std::string> unseal_record(const core::keyring& keys,
                                         std::string_view record,
                                         std::string_view idcode);

/// A batch (netstrings of uid, record pairs, as outbox entries carry them)
/// with every record unsealed (unseal_record): what a link sends a peer that
/// takes compressed cards. nullopt if any item fails.
std::optional<std::string> unseal_batch(const core::keyring& keys, std::string_view batch,
                                        std::string_view idcode);

/// An unsealed batch with every card expanded: what a link sends a peer that
/// takes cards only as they came. nullopt if any item fails.
std::optional<std::string> expand_batch(std::string_view batch);

/// A batch's items, uid, record pairs, with every record sealed
/// (seal_record): what the store's apply takes, one argument each; nullopt
/// if any item fails.
std::optional<std::vector<std::string>>
sealed_items(const core::keyring& keys, std::string_view batch, std::string_view idcode);

/// The id of the key that sealed the card of `record`; nullopt if it is not a
/// record or its card is not sealed. A card sealed with a key a keyring lacks
/// is the one kind that does not open now and may later (the key file mended).
std::optional<core::keyring::key_id> sealing_key(std::string_view record);

/// Why the card of `record` does not open with `keys`, for an operator: not
/// sealed at all, sealed with a key the ring lacks (the keyring file misses
/// a key), altered or moved from another account, or opened but not
/// expanding (`idcode` is the account it is stored under).
std::string why_unopened(const core::keyring& keys, std::string_view record,
                         std::string_view idcode);

} // namespace simsync::store
