#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct evp_mac_ctx_st; // OpenSSL's EVP_MAC_CTX

namespace simsync::core {

/// The value of one hex digit (either case); -1 if `c` is not one.
/// Inline: a sibling reads 32 of them for every card it is sent (each
/// record's hash); out of line, this call and content_hash::from_hex were
/// 2.6% of carrierd's samples in a bulk run.
constexpr int hex_digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

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

/// HMAC-SHA-256 under one key, set up once: hmac_sha256(key, message) without
/// the key's setup, and without an allocation on a thread whose last MAC of
/// this kind was under the same key (each thread keeps one context ready). A
/// gateway hashes a line's number this way on every request (line_id_of).
/// Copies share the key's setup.
class hmac_sha256_key {
public:
  /// Throws std::runtime_error if OpenSSL fails.
  explicit hmac_sha256_key(std::string_view key);

  /// hmac_sha256(key, message). Throws std::runtime_error if OpenSSL fails.
  std::string mac(std::string_view message) const;

private:
  std::shared_ptr<const evp_mac_ctx_st> keyed_; ///< copied for each thread
  std::uint64_t id_ = 0; ///< this key's setup among the process's, never reused
};

} // namespace simsync::core
