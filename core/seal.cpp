#include "core/seal.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstring>
#include <memory>
#include <stdexcept>

namespace simsync::core {

namespace {

constexpr int nonce_size = 12;
constexpr int tag_size = 16;

using cipher_ctx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

cipher_ctx new_ctx() {
  cipher_ctx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx)
    throw std::runtime_error("seal: cannot allocate a cipher context");
  return ctx;
}

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

void check_key(std::string_view key) {
  if (key.size() != seal_key_size)
    throw std::invalid_argument("seal: key must be 32 bytes");
}

} // namespace

std::string seal(std::string_view key, std::string_view plaintext,
                 std::string_view context) {
  check_key(key);
  std::string out(nonce_size + plaintext.size() + tag_size, '\0');
  unsigned char* nonce = bytes_of(out);
  unsigned char* body = nonce + nonce_size;
  random_nonce(nonce);
  auto ctx = new_ctx();
  int n = 0;
  bool ok =
      EVP_EncryptInit_ex(ctx.get(), aes_256_gcm(), nullptr, bytes_of(key), nonce) == 1 &&
      EVP_EncryptUpdate(ctx.get(), nullptr, &n, bytes_of(context),
                        static_cast<int>(context.size())) == 1 &&
      EVP_EncryptUpdate(ctx.get(), body, &n, bytes_of(plaintext),
                        static_cast<int>(plaintext.size())) == 1 &&
      EVP_EncryptFinal_ex(ctx.get(), body + n, &n) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, tag_size,
                          body + plaintext.size()) == 1;
  if (!ok)
    throw std::runtime_error("seal: AES-256-GCM encryption failed");
  return out;
}

std::optional<std::string> open(std::string_view key, std::string_view sealed,
                                std::string_view context) {
  check_key(key);
  if (sealed.size() < seal_overhead)
    return std::nullopt;
  auto nonce = sealed.substr(0, nonce_size);
  auto body = sealed.substr(nonce_size, sealed.size() - seal_overhead);
  std::string tag(sealed.substr(sealed.size() - tag_size));
  std::string out(body.size(), '\0');
  auto ctx = new_ctx();
  int n = 0;
  bool ok =
      EVP_DecryptInit_ex(ctx.get(), aes_256_gcm(), nullptr, bytes_of(key),
                         bytes_of(nonce)) == 1 &&
      EVP_DecryptUpdate(ctx.get(), nullptr, &n, bytes_of(context),
                        static_cast<int>(context.size())) == 1 &&
      EVP_DecryptUpdate(ctx.get(), bytes_of(out), &n, bytes_of(body),
                        static_cast<int>(body.size())) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, tag_size, tag.data()) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), bytes_of(out) + n, &n) == 1;
  if (!ok)
    return std::nullopt;
  return out;
}

} // namespace simsync::core
