#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace simsync::core {

/// A person's name and national ID number, normalized so that the same person
/// gives the same bytes at every carrier.
struct user_info {
  std::string name;      ///< NFC, trimmed, inner whitespace runs -> one U+0020
  std::string id_number; ///< NFC, all whitespace removed, ASCII upper-cased

  friend bool operator==(const user_info& a, const user_info& b) {
    return a.name == b.name && a.id_number == b.id_number;
  }
};

/// normalize_user_info's answer: the user info, or why there is none.
struct normalized_user_info {
  std::optional<user_info> info;
  std::string error; ///< set when info is empty
};

/// The outcome of a plausibility check: empty reason when valid.
struct check_result {
  std::string reason;
  bool ok() const { return reason.empty(); }
};

/// Normalizes user info as given at registration. Whitespace is Unicode's
/// White_Space property (so U+3000 ideographic space counts). Fails on
/// invalid UTF-8 or on a field that is empty after trimming.
normalized_user_info normalize_user_info(std::string_view name,
                                         std::string_view id_number);

/// The identification code: lower-case hex HMAC-SHA256 under the federation
/// key over "simsync-idcode-v1" then each field (name, id_number) as a 4-byte
/// big-endian length followed by its bytes. The lengths keep ("ab","c") and
/// ("a","bc") apart; the label lets the encoding change without collisions.
/// Every carrier holds the same key, so the same person gets the same code
/// everywhere, and the ID number cannot be read back from it.
/// Throws std::invalid_argument on an empty key: a missing federation key must
/// never quietly produce codes.
std::string idcode(std::string_view key, const user_info& normalized);

/// Plausibility of a normalized ID number. 17 digits then one more character:
/// a PRC resident ID, whose ISO 7064 MOD 11-2 check character (0-9 or X) and
/// birth date (1900-01-01 up to today, UTC) must be right. Anything else:
/// 6 to 20 ASCII letters and digits.
check_result validate_id_number(std::string_view id);

/// An E.164 number: '+' then 8 to 15 digits, the first not zero.
check_result validate_msisdn(std::string_view msisdn);

/// An ICCID (ITU-T E.118): 18 to 22 digits, starting with the telecom prefix 89.
check_result validate_iccid(std::string_view iccid);

} // namespace simsync::core
