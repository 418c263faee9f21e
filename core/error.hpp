#pragma once

#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>

#include <cstdint>
#include <string>

namespace simsync {

/// Every failure simsync reports, from the store up to the HTTP gateway
/// (which maps each to a status code).
enum class ec : std::uint8_t {
  none = 0,
  /// Redis is unreachable or answered something that is not simsync's data.
  store_unavailable,
  /// The store holds data that does not parse (a bug or manual tampering).
  store_corrupt,
  /// The msisdn is not registered with this carrier.
  unknown_line,
  /// The msisdn is registered to another person's account.
  line_taken,
  /// An acknowledgement names a cursor that is not the last one fetched.
  stale_cursor,
  /// The request itself is malformed; nothing was stored.
  invalid_request,
  /// A shared change refused because replication to a peer carrier is too
  /// far behind (load shedding); nothing was stored, the phone retries.
  replication_behind,
  /// A restore asks for an instant older than the history still kept; the
  /// context is the earliest instant it reaches (Unix ms).
  beyond_history,
  /// Registration: the msisdn is not an active subscriber of this carrier
  /// with that ICCID (one answer for all three, so none is revealed).
  not_eligible,
  /// Registration: the msisdn had its most codes for now; the context is
  /// when the next may be sent, in ms from now.
  too_many_codes,
  /// Registration: no one-time code is waiting for the msisdn (none was
  /// sent, or it was used).
  no_code,
  /// Registration: the one-time code expired.
  code_expired,
  /// Registration: the one-time code is wrong; the context is how many
  /// attempts are left.
  wrong_code,
  /// Registration: the code had its most wrong attempts and is void; the
  /// context is when it would have expired, in ms from now.
  too_many_attempts,
  /// The SIM token presented does not open the line (the store compared its
  /// hash with the line's); the gateway tells a revoked token from another
  /// line's.
  bad_token,
};

/// Stable, lower-case name of a code, used in logs and problem+json types.
const char* to_string(ec code);

/// "<code>: <context>" for an error made from `ec`, CAF's rendering otherwise.
std::string describe(const caf::error& err);

} // namespace simsync

CAF_ERROR_CODE_ENUM(simsync::ec, "simsync")
