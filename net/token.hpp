#pragma once

// SIM tokens. A token is "<idcode>.<secret>": the secret is 256 random bits in
// base64url; the idcode prefix lets the gateway route the token's line to the
// shard that owns its account without any global token index. Only the
// SHA-256 of the whole token is stored.

#include <optional>
#include <string>
#include <string_view>

namespace simsync::net {

struct issued_token {
  std::string token;
  std::string hash; ///< lower-case hex SHA-256 of token, what the store keeps
};

/// A fresh token for an account. Throws std::runtime_error if the random
/// source fails: a predictable token must never be issued.
issued_token issue_token(const std::string& idcode);

/// Lower-case hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);

/// The token of an `Authorization: Bearer <token>` header value, if the
/// value has that form and the token is "<64 hex idcode>.<43 base64url>".
std::optional<std::string> bearer_token(std::string_view authorization);

/// The idcode prefix of a well-formed token.
std::string_view token_idcode(std::string_view token);

/// Whether sha256_hex(token) equals `stored_hash`, in constant time.
bool token_matches(std::string_view token, std::string_view stored_hash);

} // namespace simsync::net
