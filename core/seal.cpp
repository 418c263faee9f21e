#include "core/seal.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace simsync::core {

namespace {

constexpr int nonce_size = 12;
constexpr int tag_size = 16;

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

unsigned char* bytes_of(std::string& s) {
  return reinterpret_cast<unsigned char*>(s.data());
}

/// AES-256-GCM, looked up once: given EVP_aes_256_gcm(), OpenSSL 3 looks the
/// algorithm up again at every init, which cost more than sealing a card
/// (bench/core_seal_bench).
const EVP_CIPHER* aes_256_gcm() {
  static const std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)> cipher(
      EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr), &EVP_CIPHER_free);
  if (!cipher)
    throw std::runtime_error("seal: OpenSSL offers no AES-256-GCM");
  return cipher.get();
}

/// A fresh random nonce. OpenSSL's generator is asked for many at a time: a
/// call costs about as much as sealing a card, whatever its size. The buffer
/// is the thread's own, and each nonce is handed out once.
void random_nonce(unsigned char* nonce) {
  constexpr std::size_t nonces_per_draw = 256;
  thread_local unsigned char pool[nonces_per_draw * nonce_size];
  thread_local std::size_t used = nonces_per_draw * nonce_size;
  if (used == sizeof pool) {
    if (RAND_bytes(pool, sizeof pool) != 1)
      throw std::runtime_error("seal: no random bytes for the nonce");
    used = 0;
  }
  std::memcpy(nonce, pool + used, nonce_size);
  OPENSSL_cleanse(pool + used, nonce_size);
  used += nonce_size;
}

/// This thread's cipher context for one direction, its key set only when the
/// key changes: a new context and its key (AES's round keys, GCM's hash key)
/// cost more than sealing a 200-byte card (bench/core_seal_bench), and a
/// thread seals or opens many cards under one key. Each seal or open gives it
/// its nonce alone. The key is kept to tell when it changes, and wiped with
/// the context when the thread ends.
class keyed_context {
public:
  explicit keyed_context(bool encrypt) : encrypt_(encrypt) {}
  ~keyed_context() { OPENSSL_cleanse(key_.data(), key_.size()); }
  keyed_context(const keyed_context&) = delete;
  keyed_context& operator=(const keyed_context&) = delete;

  /// The context, ready for one message under `key` (32 bytes) and `nonce`;
  /// null if OpenSSL fails.
  EVP_CIPHER_CTX* ready(std::string_view key, const unsigned char* nonce) {
    if (!ctx_) {
      ctx_.reset(EVP_CIPHER_CTX_new());
      if (!ctx_)
        throw std::runtime_error("seal: cannot allocate a cipher context");
    }
    bool same_key =
        has_key_ && CRYPTO_memcmp(key_.data(), key.data(), seal_key_size) == 0;
    has_key_ = false;
    const EVP_CIPHER* cipher = same_key ? nullptr : aes_256_gcm();
    const unsigned char* new_key = same_key ? nullptr : bytes_of(key);
    int ok = encrypt_ ? EVP_EncryptInit_ex(ctx_.get(), cipher, nullptr, new_key, nonce)
                      : EVP_DecryptInit_ex(ctx_.get(), cipher, nullptr, new_key, nonce);
    if (ok != 1)
      return nullptr;
    if (!same_key)
      std::memcpy(key_.data(), key.data(), seal_key_size);
    has_key_ = true;
    return ctx_.get();
  }

private:
  struct free_ctx {
    void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
  };
  bool encrypt_;
  std::unique_ptr<EVP_CIPHER_CTX, free_ctx> ctx_;
  std::array<unsigned char, seal_key_size> key_{};
  bool has_key_ = false;
};

void check_key(std::string_view key) {
  if (key.size() != seal_key_size)
    throw std::invalid_argument("seal: key must be 32 bytes");
}

} // namespace

std::string seal(std::string_view key, std::string_view plaintext,
                 std::string_view context) {
  std::string out;
  seal_into(out, key, plaintext, context);
  return out;
}

void seal_into(std::string& out, std::string_view key, std::string_view plaintext,
               std::string_view context) {
  check_key(key);
  auto at = out.size();
  out.resize(at + nonce_size + plaintext.size() + tag_size);
  unsigned char* nonce = bytes_of(out) + at;
  unsigned char* body = nonce + nonce_size;
  random_nonce(nonce);
  thread_local keyed_context sealing{true};
  auto* ctx = sealing.ready(key, nonce);
  int n = 0;
  bool ok = ctx &&
            EVP_EncryptUpdate(ctx, nullptr, &n, bytes_of(context),
                              static_cast<int>(context.size())) == 1 &&
            EVP_EncryptUpdate(ctx, body, &n, bytes_of(plaintext),
                              static_cast<int>(plaintext.size())) == 1 &&
            EVP_EncryptFinal_ex(ctx, body + n, &n) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, tag_size,
                                body + plaintext.size()) == 1;
  if (!ok) {
    out.resize(at);
    throw std::runtime_error("seal: AES-256-GCM encryption failed");
  }
}

std::optional<std::string> open(std::string_view key, std::string_view sealed,
                                std::string_view context) {
  std::string out;
  if (!open_into(out, key, sealed, context))
    return std::nullopt;
  return out;
}

bool open_into(std::string& out, std::string_view key, std::string_view sealed,
               std::string_view context) {
  check_key(key);
  if (sealed.size() < seal_overhead)
    return false;
  auto nonce = sealed.substr(0, nonce_size);
  auto body = sealed.substr(nonce_size, sealed.size() - seal_overhead);
  std::array<unsigned char, tag_size> tag;
  std::memcpy(tag.data(), sealed.data() + sealed.size() - tag_size, tag_size);
  auto at = out.size();
  out.resize(at + body.size());
  unsigned char* plain = bytes_of(out) + at;
  thread_local keyed_context opening{false};
  auto* ctx = opening.ready(key, bytes_of(nonce));
  int n = 0;
  bool ok = ctx &&
            EVP_DecryptUpdate(ctx, nullptr, &n, bytes_of(context),
                              static_cast<int>(context.size())) == 1 &&
            EVP_DecryptUpdate(ctx, plain, &n, bytes_of(body),
                              static_cast<int>(body.size())) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, tag_size, tag.data()) == 1 &&
            EVP_DecryptFinal_ex(ctx, plain + n, &n) == 1;
  if (!ok)
    out.resize(at);
  return ok;
}

} // namespace simsync::core
