#pragma once

// How the store knows a line and a SIM card: by keyed hashes of the MSISDN and
// the ICCID under the carrier's lookup key, never by the numbers themselves.
// The HTTP edge converts what a phone or the operator names, once; everything
// below it (actor messages, Redis keys and values, stamps sent to peer
// carriers) carries these ids. This is the one home of their hash domains.

#include "core/keyring.hpp"

#include <string>
#include <string_view>

namespace simsync::core {

/// The line id of `msisdn` at the carrier whose keys these are: 22 characters
/// of base64url, the same on every node of the carrier, unrelated to the id
/// the same number has at another carrier.
std::string line_id_of(const keyring& keys, std::string_view msisdn);

/// The stored stand-in for an ICCID (a hash domain apart from the msisdn's).
std::string iccid_hash_of(const keyring& keys, std::string_view iccid);

} // namespace simsync::core
