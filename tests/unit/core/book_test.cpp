#include "core/book.hpp"

#include "core/canonical.hpp"

#include <gtest/gtest.h>

#include <string>

namespace simsync::core {
namespace {

constexpr std::string_view anna = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Anna Berg\r\n"
                                  "TEL;TYPE=CELL:+46 70 123 45 67\r\nEND:VCARD\r\n";
constexpr std::string_view anna_21 = "BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Anna Berg\r\n"
                                     "TEL;CELL:+46-70-1234567\r\nEND:VCARD\r\n";
constexpr std::string_view anna_with_mail =
    "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Anna Berg\r\n"
    "TEL;TYPE=CELL:+46 70 123 45 67\r\nEMAIL:anna@example.se\r\nEND:VCARD\r\n";
constexpr std::string_view anna_at_work =
    "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Anna Berg\r\n"
    "TEL;TYPE=CELL:+46 70 123 45 67\r\nORG:Volvo\r\nEND:VCARD\r\n";
constexpr std::string_view bo_uid =
    "BEGIN:VCARD\nVERSION:4.0\nUID:bo-1\nFN:Bo\nEND:VCARD\n";
constexpr std::string_view bo_uid_same =
    "BEGIN:VCARD\nVERSION:3.0\nFN:Bo\nUID:bo-1\nEND:VCARD\n";
constexpr std::string_view bo_uid_other =
    "BEGIN:VCARD\nVERSION:4.0\nUID:bo-1\nFN:Bo Ek\nEND:VCARD\n";

TEST(prepare_book, entries_carry_uid_hash_and_original_bytes) {
  std::string body = std::string(anna) + std::string(bo_uid);
  prepared_book book = prepare_book(body);
  ASSERT_EQ(book.entries.size(), 2u);
  EXPECT_TRUE(book.rejected.empty());

  std::vector<vcard_block> blocks = parse_vcards(body);
  EXPECT_EQ(book.entries[0].uid, derived_uid(blocks[0].card));
  EXPECT_EQ(book.entries[0].hash, canonical_hash(blocks[0].card));
  EXPECT_EQ(book.entries[0].card, anna);
  EXPECT_EQ(book.entries[1].uid, "bo-1");
  EXPECT_EQ(book.entries[1].card, bo_uid);
}

TEST(prepare_book, reuploading_a_uidless_export_gives_the_same_uids) {
  std::string body = std::string(anna) + std::string(anna_with_mail);
  prepared_book first = prepare_book(body);
  prepared_book again = prepare_book(body);
  ASSERT_EQ(first.entries.size(), 2u);
  ASSERT_EQ(again.entries.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(first.entries[i].uid, again.entries[i].uid);
    EXPECT_EQ(first.entries[i].hash, again.entries[i].hash);
  }
  // Re-exported by another phone in another version: same identity and hash.
  prepared_book other_phone = prepare_book(anna_21);
  ASSERT_EQ(other_phone.entries.size(), 1u);
  EXPECT_EQ(other_phone.entries[0].uid, first.entries[0].uid);
  EXPECT_EQ(other_phone.entries[0].hash, first.entries[0].hash);
}

TEST(prepare_book, exact_duplicates_are_dropped) {
  std::string body = std::string(anna) + std::string(anna_21) + std::string(bo_uid) +
                     std::string(bo_uid_same);
  prepared_book book = prepare_book(body);
  ASSERT_EQ(book.entries.size(), 2u);
  EXPECT_TRUE(book.rejected.empty());
  EXPECT_EQ(book.entries[0].card, anna); // the first one is kept
  EXPECT_EQ(book.entries[1].uid, "bo-1");
}

TEST(prepare_book, colliding_derived_uids_get_suffixes_in_order) {
  std::string body = std::string(anna) + std::string(anna_with_mail) +
                     std::string(anna_at_work) + std::string(anna_with_mail);
  prepared_book book = prepare_book(body);
  ASSERT_EQ(book.entries.size(), 3u);
  const std::string& base = book.entries[0].uid;
  EXPECT_EQ(book.entries[1].uid, base + "-2");
  EXPECT_EQ(book.entries[2].uid, base + "-3");
  EXPECT_EQ(book.entries[1].card, anna_with_mail);
  EXPECT_EQ(book.entries[2].card, anna_at_work);
  EXPECT_NE(book.entries[1].hash, book.entries[2].hash);
}

TEST(prepare_book, a_different_card_with_the_same_explicit_uid_is_rejected) {
  std::string body = std::string(bo_uid) + std::string(anna) + std::string(bo_uid_other);
  prepared_book book = prepare_book(body);
  ASSERT_EQ(book.entries.size(), 2u);
  ASSERT_EQ(book.rejected.size(), 1u);
  EXPECT_EQ(book.rejected[0].index, 2u);
  EXPECT_EQ(book.rejected[0].line, 11u);
  EXPECT_EQ(book.rejected[0].reason, "duplicate UID");
}

TEST(prepare_book, malformed_cards_are_reported_and_the_rest_kept) {
  std::string body =
      "\xEF\xBB\xBF"
      "BEGIN:VCARD\nVERSION:2.1\nFN;CHARSET=X-NONE:x\nEND:VCARD\n" // index 0
      "\n";
  body += anna; // index 1, lines 6-10
  body += "BEGIN:VCARD\nVERSION:3.0\nNOTE:only a note\nEND:VCARD\n"; // index 2, line 11
  body += bo_uid;                                                    // index 3, line 15
  body += "BEGIN:VCARD\nVERSION:3.0\nFN:cut\n";                      // index 4, line 20
  prepared_book book = prepare_book(body);

  ASSERT_EQ(book.entries.size(), 2u);
  EXPECT_EQ(book.entries[0].card, anna);
  EXPECT_EQ(book.entries[1].uid, "bo-1");
  ASSERT_EQ(book.rejected.size(), 3u);
  EXPECT_EQ(book.rejected[0].index, 0u);
  EXPECT_EQ(book.rejected[0].line, 3u);
  EXPECT_EQ(book.rejected[0].reason, "unknown charset X-NONE");
  EXPECT_EQ(book.rejected[1].index, 2u);
  EXPECT_EQ(book.rejected[1].line, 11u);
  EXPECT_EQ(book.rejected[1].reason, "empty card: no FN, N, TEL or EMAIL");
  EXPECT_EQ(book.rejected[2].index, 4u);
  EXPECT_EQ(book.rejected[2].line, 20u);
  EXPECT_EQ(book.rejected[2].reason, "BEGIN:VCARD without END:VCARD");
}

TEST(prepare_book, empty_body) {
  prepared_book book = prepare_book("");
  EXPECT_TRUE(book.entries.empty());
  EXPECT_TRUE(book.rejected.empty());
}

} // namespace
} // namespace simsync::core
