#pragma once

// How a carrier signs what it sends to a peer, and how the peer checks it.
// The signature covers the origin, the destination and the serialized
// entries, so a batch cannot be passed off as another carrier's, nor
// replayed at a third carrier.

#include "actors/protocol.hpp"
#include "core/signature.hpp"

#include <optional>

#include <string>
#include <vector>

namespace caf {
class actor_system;
}

namespace simsync {

/// What the signature covers: a domain label, then origin, destination and
/// payload, each length-prefixed.
std::string signed_batch_text(const signed_batch& batch);

/// How the cards of a signed batch's batches are: as they came, or possibly
/// compressed (for a node that takes compressed cards: wire_kind).
enum class card_form { as_they_came, compressed };

/// Serializes `entries` (as wire entries, their batches' cards in `cards`
/// form) and signs them as `origin`'s batch for carrier `to`.
/// Takes them by value: CAF 0.17's serializer wants a mutable reference, and a
/// link moves each request's entries in instead of copying them.
signed_batch sign_batch(caf::actor_system& sys, const core::signature_key& key,
                        std::string origin, std::string to,
                        std::vector<store::outbox_entry> entries,
                        card_form cards = card_form::as_they_came);

/// Why a signed batch is refused whole.
enum class batch_refusal {
  unknown_origin,    ///< not a configured peer carrier
  wrong_destination, ///< addressed to another carrier
  bad_signature,     ///< absent, malformed, or not the origin's key
  malformed,         ///< signed, but the entries do not deserialize, or a
                     ///< kind is not one this carrier knows
};

/// The metric label of a refusal: unknown-origin, wrong-destination,
/// bad-signature, malformed.
const char* to_label(batch_refusal why);

/// The entries of a batch signed by `key` (the origin's public key) for
/// carrier `self`; the refusal otherwise. A batch's cards may be compressed
/// whatever its wire kind: entry_refusal checks each either way.
struct opened_batch {
  std::vector<store::outbox_entry> entries;
  std::optional<batch_refusal> refusal;
};
opened_batch open_batch(caf::actor_system& sys, const signed_batch& batch,
                        const std::string& self, const core::signature_key& key);

} // namespace simsync
