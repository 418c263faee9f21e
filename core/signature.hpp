#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

typedef struct evp_pkey_st EVP_PKEY;

namespace simsync::core {

/// Bytes of an Ed25519 signature.
inline constexpr std::size_t signature_size = 64;

/// An Ed25519 key of a carrier (OpenSSL), private or public: a carrier signs
/// what it sends to its peers with its private key, and a peer verifies it
/// against the public key configured for the carrier it claims to come from.
/// Copies share the parsed key; signing and verifying are thread-safe.
class signature_key {
public:
  /// Parses a PEM private key (PKCS#8, "BEGIN PRIVATE KEY"); nullopt unless
  /// it is an Ed25519 key.
  static std::optional<signature_key> private_from_pem(std::string_view pem) {
    return from_pem(pem, true);
  }
  /// Parses a PEM public key ("BEGIN PUBLIC KEY"); nullopt unless Ed25519.
  static std::optional<signature_key> public_from_pem(std::string_view pem) {
    return from_pem(pem, false);
  }

  /// The 64-byte signature of `message`. Throws std::logic_error on a public
  /// key, std::runtime_error if OpenSSL fails.
  std::string sign(std::string_view message) const;

  /// Whether `signature` is this key's signature of `message`.
  bool verify(std::string_view message, std::string_view signature) const;

  bool is_private() const { return is_private_; }

  /// The public key as PEM (what a peer configures as public_key_file).
  std::string public_pem() const;

private:
  static std::optional<signature_key> from_pem(std::string_view pem, bool is_private);
  signature_key(std::shared_ptr<EVP_PKEY> key, bool is_private)
      : key_(std::move(key)), is_private_(is_private) {}

  std::shared_ptr<EVP_PKEY> key_;
  bool is_private_ = false;
};

} // namespace simsync::core
