// What a carrier signs and how a peer checks it, without any network.
#include "actors/signed_batch.hpp"

#include "actors/actors.hpp"
#include "tests/support/ed25519_keys.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_serializer.hpp>
#include <gtest/gtest.h>

namespace simsync {
namespace {

struct signed_batch_test : ::testing::Test {
  signed_batch_test() : sys(cfg) {
    auto a = testing::new_pem_key_pair();
    auto c = testing::new_pem_key_pair();
    a_private = *core::signature_key::private_from_pem(a.private_pem);
    a_public = *core::signature_key::public_from_pem(a.public_pem);
    c_private = *core::signature_key::private_from_pem(c.private_pem);
    entries = {
        store::outbox_entry{"1-0", std::string(64, 'a'), store::outbox_kind::batch,
                            "3:uid,5:bytes,"},
        store::outbox_entry{"2-0", std::string(64, 'b'), store::outbox_kind::ask, ""}};
  }

  struct config : caf::actor_system_config {
    config() { add_message_types<caf::id_block::simsync>(); }
  } cfg;
  caf::actor_system sys;
  std::optional<core::signature_key> a_private, a_public, c_private;
  std::vector<store::outbox_entry> entries;
};

TEST_F(signed_batch_test, a_batch_opens_at_its_destination_with_its_origins_key) {
  auto batch = sign_batch(sys, *a_private, "carrier-a", "carrier-b", entries);
  auto opened = open_batch(sys, batch, "carrier-b", *a_public);
  ASSERT_FALSE(opened.refusal) << to_label(*opened.refusal);
  ASSERT_EQ(opened.entries.size(), 2u);
  EXPECT_EQ(caf::deep_to_string(opened.entries), caf::deep_to_string(entries));
}

TEST_F(signed_batch_test, a_batch_for_another_carrier_is_refused) {
  auto batch = sign_batch(sys, *a_private, "carrier-a", "carrier-c", entries);
  auto opened = open_batch(sys, batch, "carrier-b", *a_public);
  ASSERT_TRUE(opened.refusal);
  EXPECT_EQ(*opened.refusal, batch_refusal::wrong_destination);
  EXPECT_TRUE(opened.entries.empty());
}

TEST_F(signed_batch_test, every_signed_field_is_covered) {
  auto good = sign_batch(sys, *a_private, "carrier-a", "carrier-b", entries);
  auto tampered_payload = good;
  tampered_payload.payload.back() =
      static_cast<char>(tampered_payload.payload.back() ^ 1);
  auto tampered_origin = good;
  tampered_origin.origin = "carrier-c";
  auto unsigned_batch = good;
  unsigned_batch.signature.clear();
  for (const auto& batch : {tampered_payload, tampered_origin, unsigned_batch}) {
    auto opened = open_batch(sys, batch, "carrier-b", *a_public);
    ASSERT_TRUE(opened.refusal);
    EXPECT_EQ(*opened.refusal, batch_refusal::bad_signature);
  }
}

TEST_F(signed_batch_test, a_forged_origin_fails_against_the_claimed_carriers_key) {
  // carrier-c signs a batch claiming to be carrier-a: checked against a's key.
  auto forged = sign_batch(sys, *c_private, "carrier-a", "carrier-b", entries);
  auto opened = open_batch(sys, forged, "carrier-b", *a_public);
  ASSERT_TRUE(opened.refusal);
  EXPECT_EQ(*opened.refusal, batch_refusal::bad_signature);
}

TEST_F(signed_batch_test, a_signed_payload_that_is_not_entries_is_malformed) {
  signed_batch batch{"carrier-a", "carrier-b", "\x05garbage", {}};
  batch.signature = a_private->sign(signed_batch_text(batch));
  auto opened = open_batch(sys, batch, "carrier-b", *a_public);
  ASSERT_TRUE(opened.refusal);
  EXPECT_EQ(*opened.refusal, batch_refusal::malformed);
  EXPECT_TRUE(opened.entries.empty());
}

/// A batch signed by `key` whose payload is `wire`, serialized as is.
signed_batch sign_wire(caf::actor_system& sys, const core::signature_key& key,
                       std::vector<wire_entry> wire) {
  std::vector<char> bytes;
  caf::binary_serializer sink{sys, bytes};
  EXPECT_FALSE(sink(wire));
  signed_batch batch{
      "carrier-a", "carrier-b", std::string(bytes.begin(), bytes.end()), {}};
  batch.signature = key.sign(signed_batch_text(batch));
  return batch;
}

TEST_F(signed_batch_test, every_kind_travels_as_its_fixed_number) {
  // What another company's nodes read: the numbers must not follow the
  // store's enum, whatever order it lists its kinds in.
  std::vector<wire_entry> wire{{"1-0", std::string(64, 'a'), 0, "3:uid,5:bytes,"},
                               {"2-0", std::string(64, 'a'), 1, ""},
                               {"3-0", std::string(64, 'a'), 2, ""},
                               {"4-0", std::string(64, 'a'), 3, ""}};
  auto opened = open_batch(sys, sign_wire(sys, *a_private, wire), "carrier-b", *a_public);
  ASSERT_FALSE(opened.refusal);
  ASSERT_EQ(opened.entries.size(), 4u);
  EXPECT_EQ(opened.entries[0].kind, store::outbox_kind::batch);
  EXPECT_EQ(opened.entries[1].kind, store::outbox_kind::ask);
  EXPECT_EQ(opened.entries[2].kind, store::outbox_kind::retire);
  EXPECT_EQ(opened.entries[3].kind, store::outbox_kind::hold);
  // And sign_batch writes those numbers.
  auto batch = sign_batch(sys, *a_private, "carrier-a", "carrier-b", opened.entries);
  EXPECT_EQ(batch.payload, sign_wire(sys, *a_private, wire).payload);
}

TEST_F(signed_batch_test, a_batch_of_compressed_cards_travels_as_a_kind_of_its_own) {
  // Number 4, which a node of a release that does not take compressed cards
  // refuses whole (the next test); this release opens it as a batch.
  auto batch = sign_batch(sys, *a_private, "carrier-a", "carrier-b", entries,
                          card_form::compressed);
  std::vector<wire_entry> wire{{"1-0", std::string(64, 'a'), 4, "3:uid,5:bytes,"},
                               {"2-0", std::string(64, 'b'), 1, ""}};
  EXPECT_EQ(batch.payload, sign_wire(sys, *a_private, wire).payload)
      << "only the batch's kind differs; an ask is an ask";
  auto opened = open_batch(sys, batch, "carrier-b", *a_public);
  ASSERT_FALSE(opened.refusal) << to_label(*opened.refusal);
  EXPECT_EQ(caf::deep_to_string(opened.entries), caf::deep_to_string(entries));
}

TEST_F(signed_batch_test, a_kind_this_carrier_does_not_know_makes_the_batch_malformed) {
  // A newer peer's kind, or a hostile one: refused whole, never passed on
  // as an enum value the store does not name.
  auto batch = sign_wire(sys, *a_private,
                         {{"1-0", std::string(64, 'a'), 0, "3:uid,5:bytes,"},
                          {"2-0", std::string(64, 'a'), 7, ""}});
  auto opened = open_batch(sys, batch, "carrier-b", *a_public);
  ASSERT_TRUE(opened.refusal);
  EXPECT_EQ(*opened.refusal, batch_refusal::malformed);
  EXPECT_TRUE(opened.entries.empty());
}

TEST_F(signed_batch_test, the_signed_text_separates_its_fields) {
  // Moving a byte from origin to destination changes what is signed.
  signed_batch one{"ab", "c", "p", {}};
  signed_batch two{"a", "bc", "p", {}};
  EXPECT_NE(signed_batch_text(one), signed_batch_text(two));
}

} // namespace
} // namespace simsync
