// Message types survive CAF's binary serialization, as they do between nodes.
#include "actors/protocol.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <gtest/gtest.h>

namespace simsync {
namespace {

template <class T> T round_trip(T x) {
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  EXPECT_FALSE(sink(x));
  T back;
  caf::binary_deserializer source{nullptr, buf};
  EXPECT_FALSE(source(back));
  return back;
}

TEST(protocol, a_book_entry_keeps_its_index_and_whether_its_uid_was_assigned) {
  core::book_entry e{"simsync-0123", core::content_hash::of("card"), "BEGIN:VCARD...", 7,
                     true};
  auto back = round_trip(e);
  EXPECT_EQ(back.uid, e.uid);
  EXPECT_EQ(back.hash, e.hash);
  EXPECT_EQ(back.card, e.card);
  EXPECT_EQ(back.index, 7u);
  EXPECT_TRUE(back.uid_assigned);
  e.uid_assigned = false;
  EXPECT_FALSE(round_trip(e).uid_assigned);
}

TEST(protocol, an_upload_request_carries_its_cards_whole) {
  store::upload_request req;
  req.idcode = "id";
  req.line = "bGluZS1pZC1vZi1hLWxpbmU";
  req.cards = {{"u1", core::content_hash::of("a"), "A", 0, false},
               {"simsync-2", core::content_hash::of("b"), "B", 2, true}};
  req.allow_removals = false;
  auto back = round_trip(req);
  ASSERT_EQ(back.cards.size(), 2u);
  EXPECT_EQ(back.cards[1].uid, "simsync-2");
  EXPECT_EQ(back.cards[1].index, 2u);
  EXPECT_TRUE(back.cards[1].uid_assigned);
  EXPECT_FALSE(back.allow_removals);
}

TEST(protocol, the_registry_messages_keep_every_field) {
  store::subscriber_record record{"bGluZS1pZC1vZi1hLWxpbmU", "aWNjaWQtaGFzaC1vZi1zaW0",
                                  std::string(64, 'a'), std::string("\x01\x00sealed", 8),
                                  false};
  auto back = round_trip(record);
  EXPECT_EQ(caf::deep_to_string(back), caf::deep_to_string(record));
  EXPECT_EQ(back.sealed_user_info, record.sealed_user_info); // bytes, zeros included
  EXPECT_FALSE(back.active);

  store::subscriber_outcome outcome{store::subscriber_change::replaced, true,
                                    std::string(64, 'b')};
  auto outcome_back = round_trip(outcome);
  EXPECT_EQ(outcome_back.change, store::subscriber_change::replaced);
  EXPECT_EQ(outcome_back.retire_owner, outcome.retire_owner);

  store::code_request code{
      "bGluZS1pZC1vZi1hLWxpbmU", "aWNjaWQtaGFzaC1vZi1zaW0", "hash", 1, 2, 3, 4};
  EXPECT_EQ(caf::deep_to_string(round_trip(code)), caf::deep_to_string(code));
  store::code_check check{"bGluZS1pZC1vZi1hLWxpbmU", "hash", 5, 6};
  EXPECT_EQ(caf::deep_to_string(round_trip(check)), caf::deep_to_string(check));
  store::verified_subscriber who{std::string(64, 'c'), "aWNjaWQtaGFzaC1vZi1zaW0",
                                 "sealed"};
  EXPECT_EQ(caf::deep_to_string(round_trip(who)), caf::deep_to_string(who));
}

TEST(protocol, a_dead_letter_keeps_its_entry_whole_and_its_reason) {
  store::dead_letter letter{
      store::outbox_entry{"5-1", "not-an-idcode", store::outbox_kind::retire, "b"},
      "the idcode is not 64 lower-case hex digits"};
  auto back = round_trip(letter);
  EXPECT_EQ(back.entry.id, "5-1");
  EXPECT_EQ(back.entry.kind, store::outbox_kind::retire);
  EXPECT_EQ(back.entry.batch, "b");
  EXPECT_EQ(back.reason, letter.reason);
}

TEST(protocol, a_signed_batch_and_a_federation_status_keep_every_field) {
  signed_batch batch{"carrier-a", "carrier-b", std::string("\0\1payload", 9),
                     std::string(64, '\x7f')};
  auto back = round_trip(batch);
  EXPECT_EQ(back.origin, batch.origin);
  EXPECT_EQ(back.to, batch.to);
  EXPECT_EQ(back.payload, batch.payload);
  EXPECT_EQ(back.signature, batch.signature);
  metrics::actor_status status;
  status.name = "federation";
  status.refused = {{"bad-signature", 3}, {"unknown-origin", 1}};
  EXPECT_EQ(round_trip(status).refused, status.refused);
}

} // namespace
} // namespace simsync
