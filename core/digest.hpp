#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace simsync::core {

/// The value of one hex digit (either case); -1 if `c` is not one.
int hex_digit_value(char c);

/// Lower-case hex of `bytes`: the text form of idcodes, token and code
/// hashes, and keys in files.
std::string hex(std::string_view bytes);

/// The bytes `text` spells in hex (either case); nullopt if its length is odd
/// or it holds a character that is not a hex digit.
std::optional<std::string> bytes_of_hex(std::string_view text);

/// SHA-256 of `bytes`: 32 raw bytes.
std::string sha256(std::string_view bytes);

/// HMAC-SHA-256 of `message` under `key`: 32 raw bytes. Throws
/// std::runtime_error if OpenSSL fails.
std::string hmac_sha256(std::string_view key, std::string_view message);

} // namespace simsync::core
