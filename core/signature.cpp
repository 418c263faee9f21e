#include "core/signature.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <stdexcept>

namespace simsync::core {

namespace {

using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;
using md_context_ptr = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

bio_ptr memory_bio(std::string_view pem) {
  return {BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free};
}

std::shared_ptr<EVP_PKEY> ed25519_only(EVP_PKEY* key) {
  std::shared_ptr<EVP_PKEY> owned{key, &EVP_PKEY_free};
  if (!key || EVP_PKEY_get_id(key) != EVP_PKEY_ED25519)
    return nullptr;
  return owned;
}

md_context_ptr new_context() {
  md_context_ptr ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  if (!ctx)
    throw std::runtime_error("EVP_MD_CTX_new failed");
  return ctx;
}

} // namespace

std::optional<signature_key> signature_key::from_pem(std::string_view pem,
                                                     bool is_private) {
  auto bio = memory_bio(pem);
  if (!bio)
    return std::nullopt;
  auto key = ed25519_only(
      is_private ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                 : PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  if (!key)
    return std::nullopt;
  return signature_key{std::move(key), is_private};
}

std::string signature_key::sign(std::string_view message) const {
  if (!is_private_)
    throw std::logic_error("signing needs a private key");
  auto ctx = new_context();
  // Ed25519 hashes internally: the digest argument is NULL (one-shot API).
  if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1)
    throw std::runtime_error("EVP_DigestSignInit failed");
  std::string out(signature_size, '\0');
  auto size = out.size();
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &size,
                     reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      size != signature_size)
    throw std::runtime_error("EVP_DigestSign failed");
  return out;
}

bool signature_key::verify(std::string_view message, std::string_view signature) const {
  if (signature.size() != signature_size)
    return false;
  auto ctx = new_context();
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1)
    return false;
  return EVP_DigestVerify(
             ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
             signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
             message.size()) == 1;
}

std::string signature_key::public_pem() const {
  bio_ptr bio{BIO_new(BIO_s_mem()), &BIO_free};
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key_.get()) != 1)
    throw std::runtime_error("PEM_write_bio_PUBKEY failed");
  char* data = nullptr;
  auto size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

} // namespace simsync::core
