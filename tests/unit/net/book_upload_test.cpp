#include "net/book_upload.hpp"

#include <gtest/gtest.h>

namespace simsync::net {
namespace {

const std::string card_a = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Anna\r\nEND:VCARD\r\n";
const std::string card_b =
    "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:b-1\r\nFN:Bo\r\nEND:VCARD\r\n";

TEST(check_book, a_body_without_cards_is_422_no_cards) {
  for (std::string body : {"", " \r\n\r\n", "hello", "{\"cards\":[]}"}) {
    auto book = check_book(body, gateway_limits{});
    ASSERT_TRUE(book.error) << body;
    EXPECT_EQ(book.error->status, 422) << body;
    EXPECT_EQ(book.error->slug, "no-cards") << body;
  }
}

TEST(check_book, empty_on_purpose_takes_a_blank_body_only) {
  auto emptied = check_book(" \r\n", gateway_limits{}, true);
  EXPECT_FALSE(emptied.error);
  EXPECT_TRUE(emptied.entries.empty());
  EXPECT_TRUE(emptied.rejected.empty());
  for (std::string body : {card_a, std::string("junk")}) {
    auto contradiction = check_book(body, gateway_limits{}, true);
    ASSERT_TRUE(contradiction.error) << body;
    EXPECT_EQ(contradiction.error->status, 400);
  }
}

TEST(check_book, text_between_cards_is_rejected_and_the_cards_kept) {
  auto book = check_book(card_a + "stray words\r\n" + card_b, gateway_limits{});
  ASSERT_FALSE(book.error);
  EXPECT_EQ(book.entries.size(), 2u);
  ASSERT_EQ(book.rejected.size(), 1u);
  EXPECT_EQ(book.rejected[0].index, 1u);
  EXPECT_EQ(book.rejected[0].line, 5u);
  EXPECT_EQ(book.rejected[0].reason, "text outside a card");
}

TEST(check_book, oversize_cards_keep_their_index_and_line_after_text) {
  gateway_limits limits;
  limits.max_card_bytes = 60;
  std::string big =
      "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Big\r\nNOTE:" + std::string(80, 'x') +
      "\r\nEND:VCARD\r\n";
  auto book = check_book("junk\r\n" + card_a + big + card_b, limits);
  ASSERT_FALSE(book.error);
  ASSERT_EQ(book.rejected.size(), 2u);
  EXPECT_EQ(book.rejected[0].index, 0u); // the junk before card 0
  EXPECT_EQ(book.rejected[1].index, 1u);
  EXPECT_EQ(book.rejected[1].line, 6u);
  ASSERT_EQ(book.entries.size(), 2u);
  EXPECT_EQ(book.entries[1].index, 2u);
}

TEST(assigned_uids_json, maps_the_index_of_every_card_the_server_named) {
  auto book = check_book(card_b + card_a, gateway_limits{});
  ASSERT_FALSE(book.error);
  auto assigned = assigned_uids_json(book.entries);
  ASSERT_EQ(assigned.size(), 1u) << assigned;
  ASSERT_TRUE(assigned.contains("1")) << assigned;
  EXPECT_EQ(assigned["1"], book.entries[1].uid);
  EXPECT_TRUE(assigned_uids_json({}).is_object());
}

} // namespace
} // namespace simsync::net
