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
  req.line = "+8613800138000";
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

} // namespace
} // namespace simsync
