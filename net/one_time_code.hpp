#pragma once

// One-time codes that prove a phone holds a SIM: six random digits sent by
// SMS to the msisdn. Only a keyed hash of a code is stored, so a copy of the
// store does not give the codes away (six digits are too few to hide behind
// a plain hash).

#include <chrono>
#include <string>
#include <string_view>

namespace simsync::net {

/// Six uniformly random digits. Throws std::runtime_error if the random
/// source fails: a predictable code must never be sent.
std::string new_code();

/// Whether `text` has the form of a code: exactly six ASCII digits.
bool is_code(std::string_view text);

/// Lower-case hex HMAC-SHA256 under `key` of the label, the msisdn and the
/// code: a code is only ever compared through this.
std::string code_hash(std::string_view key, std::string_view msisdn,
                      std::string_view code);

/// The text of the SMS that carries a code.
std::string code_message(std::string_view code, std::chrono::seconds valid_for);

} // namespace simsync::net
