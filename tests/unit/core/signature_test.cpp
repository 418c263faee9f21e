#include "core/signature.hpp"

#include "tests/support/ed25519_keys.hpp"

#include <gtest/gtest.h>

namespace simsync::core {
namespace {

using testing::new_pem_key_pair;

TEST(signature, a_signature_verifies_with_the_matching_public_key_only) {
  auto pair = new_pem_key_pair();
  auto other = new_pem_key_pair();
  auto signer = signature_key::private_from_pem(pair.private_pem);
  auto verifier = signature_key::public_from_pem(pair.public_pem);
  auto stranger = signature_key::public_from_pem(other.public_pem);
  ASSERT_TRUE(signer && verifier && stranger);
  auto signature = signer->sign("batch bytes");
  EXPECT_EQ(signature.size(), signature_size);
  EXPECT_TRUE(verifier->verify("batch bytes", signature));
  EXPECT_TRUE(signer->verify("batch bytes", signature));
  EXPECT_FALSE(stranger->verify("batch bytes", signature));
  EXPECT_FALSE(verifier->verify("batch bytez", signature));
  auto flipped = signature;
  flipped[10] = static_cast<char>(flipped[10] ^ 1);
  EXPECT_FALSE(verifier->verify("batch bytes", flipped));
  EXPECT_FALSE(verifier->verify("batch bytes", signature.substr(1)));
  EXPECT_FALSE(verifier->verify("batch bytes", ""));
}

TEST(signature, the_public_half_of_a_private_key_is_what_a_peer_configures) {
  auto pair = new_pem_key_pair();
  auto signer = signature_key::private_from_pem(pair.private_pem);
  ASSERT_TRUE(signer);
  EXPECT_EQ(signer->public_pem(), pair.public_pem);
}

TEST(signature, only_ed25519_keys_of_the_expected_half_are_taken) {
  auto pair = new_pem_key_pair();
  auto ec = new_pem_key_pair("EC");
  EXPECT_FALSE(signature_key::private_from_pem(pair.public_pem));
  EXPECT_FALSE(signature_key::public_from_pem(pair.private_pem));
  EXPECT_FALSE(signature_key::private_from_pem(ec.private_pem));
  EXPECT_FALSE(signature_key::public_from_pem(ec.public_pem));
  EXPECT_FALSE(signature_key::private_from_pem(""));
  EXPECT_FALSE(signature_key::public_from_pem("-----BEGIN PUBLIC KEY-----\nAAAA\n"));
}

TEST(signature, a_public_key_cannot_sign) {
  auto verifier = signature_key::public_from_pem(new_pem_key_pair().public_pem);
  ASSERT_TRUE(verifier);
  EXPECT_FALSE(verifier->is_private());
  EXPECT_THROW(verifier->sign("x"), std::logic_error);
}

} // namespace
} // namespace simsync::core
