#include "core/digest.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <atomic>
#include <memory>
#include <stdexcept>

namespace simsync::core {

namespace {

// SHA-256 and HMAC, looked up once: OpenSSL 3 looks an algorithm up again at
// every call that names it by EVP_sha256() or HMAC(), which cost more than
// hashing a line's number (bench/core_seal_bench, line_id).

const EVP_MD* sha256_md() {
  static const std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md(
      EVP_MD_fetch(nullptr, "SHA2-256", nullptr), &EVP_MD_free);
  if (!md)
    throw std::runtime_error("OpenSSL offers no SHA-256");
  return md.get();
}

using mac_ctx = std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)>;

/// An HMAC-SHA-256 context without a key, copied for each MAC: setting the
/// digest by name looks it up again.
const EVP_MAC_CTX* hmac_sha256_template() {
  static const mac_ctx ctx = [] {
    std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)> mac(
        EVP_MAC_fetch(nullptr, "HMAC", nullptr), &EVP_MAC_free);
    mac_ctx out(mac ? EVP_MAC_CTX_new(mac.get()) : nullptr, &EVP_MAC_CTX_free);
    char digest[] = "SHA2-256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end()};
    if (!out || EVP_MAC_CTX_set_params(out.get(), params) != 1)
      throw std::runtime_error("OpenSSL offers no HMAC-SHA-256");
    return out;
  }();
  return ctx.get();
}

} // namespace

std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (unsigned char byte : bytes) {
    out += digits[byte >> 4];
    out += digits[byte & 0xf];
  }
  return out;
}

std::optional<std::string> bytes_of_hex(std::string_view text) {
  if (text.size() % 2 != 0)
    return std::nullopt;
  std::string out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    int high = hex_digit_value(text[i]), low = hex_digit_value(text[i + 1]);
    if (high < 0 || low < 0)
      return std::nullopt;
    out += static_cast<char>((high << 4) | low);
  }
  return out;
}

std::string sha256(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, sha256_md(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  return {reinterpret_cast<const char*>(digest), size};
}

std::string hmac_sha256(std::string_view key, std::string_view message) {
  mac_ctx ctx(EVP_MAC_CTX_dup(hmac_sha256_template()), &EVP_MAC_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  std::size_t size = 0;
  if (!ctx ||
      EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(key.data()),
                   key.size(), nullptr) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      EVP_MAC_final(ctx.get(), digest, &size, sizeof digest) != 1)
    throw std::runtime_error("HMAC-SHA-256 failed");
  return {reinterpret_cast<const char*>(digest), size};
}

hmac_sha256_key::hmac_sha256_key(std::string_view key) {
  static std::atomic<std::uint64_t> made{0};
  mac_ctx ctx(EVP_MAC_CTX_dup(hmac_sha256_template()), &EVP_MAC_CTX_free);
  if (!ctx || EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(key.data()),
                           key.size(), nullptr) != 1)
    throw std::runtime_error("HMAC-SHA-256 failed");
  keyed_ =
      std::shared_ptr<const evp_mac_ctx_st>(ctx.release(), [](const evp_mac_ctx_st* c) {
        EVP_MAC_CTX_free(const_cast<EVP_MAC_CTX*>(c));
      });
  id_ = ++made;
}

std::string hmac_sha256_key::mac(std::string_view message) const {
  // The thread's context, keyed by the setup it was copied from: an id, not
  // the address, which a later key's setup could reuse.
  struct ready_context {
    std::uint64_t id = 0;
    mac_ctx ctx{nullptr, &EVP_MAC_CTX_free};
  };
  thread_local ready_context ready;
  bool reused = ready.id == id_ && ready.ctx;
  if (reused) {
    // No key: the key set before is used again, from its start.
    if (EVP_MAC_init(ready.ctx.get(), nullptr, 0, nullptr) != 1)
      throw std::runtime_error("HMAC-SHA-256 failed");
  } else {
    ready.ctx.reset(EVP_MAC_CTX_dup(keyed_.get()));
    ready.id = ready.ctx ? id_ : 0;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  std::size_t size = 0;
  if (!ready.ctx ||
      EVP_MAC_update(ready.ctx.get(),
                     reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      EVP_MAC_final(ready.ctx.get(), digest, &size, sizeof digest) != 1) {
    ready.id = 0; // not left half-used for the next MAC
    throw std::runtime_error("HMAC-SHA-256 failed");
  }
  return {reinterpret_cast<const char*>(digest), size};
}

} // namespace simsync::core
