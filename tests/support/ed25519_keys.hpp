#pragma once

// Fresh Ed25519 key pairs for unit tests, as PEM (what tools/pki writes).

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace simsync::testing {

struct pem_key_pair {
  std::string private_pem;
  std::string public_pem;
};

inline pem_key_pair new_pem_key_pair(const char* algorithm = "ED25519") {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{
      std::string{algorithm} == "EC" ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")
                                     : EVP_PKEY_Q_keygen(nullptr, nullptr, algorithm),
      &EVP_PKEY_free};
  if (!key)
    throw std::runtime_error("key generation failed");
  auto to_text = [](BIO* bio) {
    char* data = nullptr;
    auto size = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(size));
    BIO_free(bio);
    return out;
  };
  BIO* priv = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(priv, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  BIO* pub = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(pub, key.get());
  return {to_text(priv), to_text(pub)};
}

} // namespace simsync::testing
