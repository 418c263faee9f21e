#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace simsync::core {

/// Bytes of a seal key (AES-256).
inline constexpr std::size_t seal_key_size = 32;
/// Overhead of a sealed value: 12-byte nonce before, 16-byte tag after.
inline constexpr std::size_t seal_overhead = 12 + 16;

/// Encrypts data at rest (user info) with AES-256-GCM under a 32-byte key and
/// a fresh random nonce. The result is raw bytes, nonce|ciphertext|tag, which
/// Redis stores as is. `context` (e.g. the idcode) is authenticated but not
/// stored: a sealed value copied under another context will not open.
/// Throws std::invalid_argument if the key is not 32 bytes, std::runtime_error
/// if the random source or cipher fails.
std::string seal(std::string_view key, std::string_view plaintext,
                 std::string_view context = {});

/// seal()'s bytes appended to `out`: a batch of cards is sealed into one
/// string kept from card to card instead of a new string each.
void seal_into(std::string& out, std::string_view key, std::string_view plaintext,
               std::string_view context = {});

/// Decrypts seal()'s output; nullopt if it was altered, truncated, or sealed
/// under another key or context. Throws std::invalid_argument if the key is
/// not 32 bytes: a misconfigured key is not a tampered value.
std::optional<std::string> open(std::string_view key, std::string_view sealed,
                                std::string_view context = {});

/// open()'s plaintext appended to `out`; false, with `out` as it was, where
/// open() gives nullopt.
bool open_into(std::string& out, std::string_view key, std::string_view sealed,
               std::string_view context = {});

} // namespace simsync::core
