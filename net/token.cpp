#include "net/token.hpp"

#include "core/base64url.hpp"
#include "core/digest.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <cctype>
#include <stdexcept>

namespace simsync::net {

namespace {

constexpr std::size_t idcode_chars = 64;
constexpr std::size_t secret_bytes = 32;
constexpr std::size_t secret_chars = 43; // base64url of 32 bytes, no padding

bool is_lower_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool is_base64url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_';
}

} // namespace

std::string sha256_hex(std::string_view text) {
  return core::hex(core::sha256(text));
}

issued_token issue_token(const std::string& idcode) {
  std::array<unsigned char, secret_bytes> secret{};
  if (RAND_bytes(secret.data(), static_cast<int>(secret.size())) != 1)
    throw std::runtime_error("RAND_bytes failed");
  issued_token out;
  out.token =
      idcode + "." +
      core::base64url({reinterpret_cast<const char*>(secret.data()), secret.size()});
  out.hash = sha256_hex(out.token);
  return out;
}

std::optional<std::string> bearer_token(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer ";
  if (authorization.size() <= scheme.size())
    return std::nullopt;
  // The scheme name is case-insensitive (RFC 9110 §11.1).
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i])
      return std::nullopt;
  auto token = authorization.substr(scheme.size());
  while (!token.empty() && token.front() == ' ')
    token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ')
    token.remove_suffix(1);
  if (token.size() != idcode_chars + 1 + secret_chars || token[idcode_chars] != '.')
    return std::nullopt;
  for (std::size_t i = 0; i < idcode_chars; ++i)
    if (!is_lower_hex(token[i]))
      return std::nullopt;
  for (std::size_t i = idcode_chars + 1; i < token.size(); ++i)
    if (!is_base64url(token[i]))
      return std::nullopt;
  return std::string(token);
}

std::string_view token_idcode(std::string_view token) {
  return token.substr(0, idcode_chars);
}

bool token_matches(std::string_view token, std::string_view stored_hash) {
  auto hash = sha256_hex(token);
  return stored_hash.size() == hash.size() &&
         CRYPTO_memcmp(hash.data(), stored_hash.data(), hash.size()) == 0;
}

} // namespace simsync::net
