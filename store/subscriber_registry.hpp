#pragma once

// The carrier's subscriber registry: which person (idcode, sealed name and
// ID number) and which SIM (ICCID) each line belongs to, as the carrier's
// own systems say, and the one-time codes that prove a phone holds the SIM.
// Lines and SIMs are named by their keyed hashes (core/line_id.hpp); each
// line's record lives at the shard the line routes to
// (config::shard_of_line), next to its claim.

#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <string>

namespace simsync::store {

/// A subscriber ready for the store: the gateway derived the idcode and
/// sealed the name and ID number (bound to the idcode) before.
struct subscriber_record {
  std::string line; ///< the line id of the msisdn
  std::string iccid_hash;
  std::string idcode;
  std::string sealed_user_info;
  bool active = true;
};

enum class subscriber_change : std::uint8_t { unchanged, created, replaced };

/// What writing or deleting a record did, and the account whose line must
/// now be retired (empty when none).
struct subscriber_outcome {
  subscriber_change change = subscriber_change::unchanged;
  bool existed = false; ///< for a delete: there was a record
  std::string retire_owner;
};

/// A one-time code to store for a line, as its keyed hash.
struct code_request {
  std::string line;
  std::string iccid_hash; ///< must be the subscriber's
  std::string code_hash;
  std::uint64_t now_ms = 0;
  std::uint64_t ttl_ms = 0;
  std::uint64_t window_ms = 0; ///< codes_per_window counts codes sent in this window
  std::uint64_t codes_per_window = 0;
};

/// A code offered by a phone.
struct code_check {
  std::string line;
  std::string code_hash;
  std::uint64_t now_ms = 0;
  std::uint64_t max_attempts = 0;
};

/// The subscriber a verified code belongs to.
struct verified_subscriber {
  std::string idcode;
  std::string iccid_hash;
  std::string sealed_user_info;
};

caf::expected<subscriber_outcome> put_subscriber(redis_client& redis,
                                                 const subscriber_record& record,
                                                 std::uint64_t now_ms);
caf::expected<subscriber_outcome> delete_subscriber(redis_client& redis,
                                                    const std::string& line);
/// Stores the code; returns when it expires (Unix ms). Fails ec::not_eligible
/// or ec::too_many_codes (context: ms until another may be sent).
caf::expected<std::uint64_t> issue_code(redis_client& redis, const code_request& req);
/// Uses the code up. Fails ec::no_code, ec::code_expired, ec::wrong_code
/// (context: attempts left), ec::too_many_attempts (context: ms until the
/// code would have expired) or ec::not_eligible.
caf::expected<verified_subscriber> verify_code(redis_client& redis,
                                               const code_check& req);

} // namespace simsync::store
