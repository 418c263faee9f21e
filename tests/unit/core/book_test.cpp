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
  EXPECT_EQ(book.cards, 0u);
}

TEST(prepare_book, entries_know_their_index_and_whether_their_uid_was_assigned) {
  // index 0 derived, 1 explicit, 2 rejected, 3 exact duplicate of 0, 4 derived.
  std::string body = std::string(anna) + std::string(bo_uid) +
                     "BEGIN:VCARD\nVERSION:3.0\nNOTE:only a note\nEND:VCARD\n" +
                     std::string(anna_21) + std::string(anna_at_work);
  prepared_book book = prepare_book(body);
  EXPECT_EQ(book.cards, 5u);
  ASSERT_EQ(book.entries.size(), 3u);
  EXPECT_EQ(book.entries[0].index, 0u);
  EXPECT_TRUE(book.entries[0].uid_assigned);
  EXPECT_EQ(book.entries[1].index, 1u);
  EXPECT_FALSE(book.entries[1].uid_assigned);
  EXPECT_EQ(book.entries[2].index, 4u);
  EXPECT_TRUE(book.entries[2].uid_assigned);
  ASSERT_EQ(book.rejected.size(), 1u);
  EXPECT_EQ(book.rejected[0].index, 2u);
}

TEST(prepare_book, a_body_without_cards_says_so) {
  for (std::string_view body :
       {std::string_view(""), std::string_view(" \r\n\t\n"),
        std::string_view("just some text\n"), std::string_view("{\"cards\": []}")}) {
    prepared_book book = prepare_book(body);
    EXPECT_EQ(book.cards, 0u) << body;
    EXPECT_TRUE(book.entries.empty()) << body;
  }
  // Blank text is not reported; other text is, at its first line.
  EXPECT_TRUE(prepare_book(" \r\n\n").rejected.empty());
  prepared_book text = prepare_book("\n\nhello\nworld\n");
  ASSERT_EQ(text.rejected.size(), 1u);
  EXPECT_EQ(text.rejected[0].index, 0u);
  EXPECT_EQ(text.rejected[0].line, 3u);
  EXPECT_EQ(text.rejected[0].reason, text_outside_a_card);
}

TEST(prepare_book, text_outside_the_cards_is_rejected_where_it_stands) {
  std::string body = "preamble\n";  // line 1, before card 0
  body += anna;                     // card 0, lines 2-6
  body += "\n";                     // line 7, blank: fine
  body += bo_uid;                   // card 1, lines 8-12
  body += "-- cut here --\nmore\n"; // lines 13-14, before card 2
  body += anna_at_work;             // card 2, lines 15-20
  body += "END:VCARD\ntrailer";     // lines 21-22, after the last
  prepared_book book = prepare_book(body);
  EXPECT_EQ(book.cards, 3u);
  ASSERT_EQ(book.entries.size(), 3u); // the cards themselves are all good
  ASSERT_EQ(book.rejected.size(), 3u);
  EXPECT_EQ(book.rejected[0].index, 0u);
  EXPECT_EQ(book.rejected[0].line, 1u);
  EXPECT_EQ(book.rejected[1].index, 2u);
  EXPECT_EQ(book.rejected[1].line, 13u);
  EXPECT_EQ(book.rejected[2].index, 3u);
  EXPECT_EQ(book.rejected[2].line, 21u);
  for (const auto& r : book.rejected)
    EXPECT_EQ(r.reason, text_outside_a_card);
}

/// Everything prepare_book gives, as one comparable text.
std::string described(const prepared_book& book) {
  std::string out = "cards " + std::to_string(book.cards) + "\n";
  for (const auto& e : book.entries)
    out += "entry " + std::to_string(e.index) + " " + e.uid + " " + e.hash.hex() + " " +
           (e.uid_assigned ? "assigned" : "own") + " [" + e.card + "]\n";
  for (const auto& r : book.rejected)
    out += "rejected " + std::to_string(r.index) + " line " + std::to_string(r.line) +
           ": " + r.reason + "\n";
  return out;
}

// A large body is read in slices on several threads, cut where a card
// starts. Whatever stands at a cut (a card not ended, text outside the
// cards, a quoted-printable soft break that joins a BEGIN line to the line
// before it, a line folded into a BEGIN line, a lone CR after one,
// duplicates of one UID in different slices, LF or CRLF), the book is the
// one a single reader gives: slices of 1 byte cut at every card that can be
// cut at. (tests/fuzz/book_fuzz.cpp checks the same on any bytes.)
TEST(prepare_book, a_body_read_in_slices_is_the_body_read_whole) {
  const std::string soft_break_into_begin =
      "BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Qp Soft\r\n"
      "NOTE;ENCODING=QUOTED-PRINTABLE:first=\r\nBEGIN:VCARD\r\nEND:VCARD\r\n";
  const std::string not_ended = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cut Short\r\n";
  const std::string broken = "BEGIN:VCARD\nVERSION:3.0\n:no name\nFN:Broken\nEND:VCARD\n";
  // Not a BEGIN line where lines break at '\n': text outside a card.
  const std::string begin_with_a_lone_cr = "BEGIN:VCARD\r\x1aVERSION:3.0\r\n";
  // Inside a card, a BEGIN line with a line folded into it is no BEGIN line.
  const std::string begin_folded = "BEGIN:VCARD\r\n Folded\r\nFN:Folded\r\nEND:VCARD\r\n";
  std::string body = "\xEF\xBB\xBF";
  for (int round = 0; round < 3; ++round) {
    body += std::string(anna) + std::string(bo_uid) + "stray text\r\n" +
            begin_with_a_lone_cr + std::string(anna_with_mail) + soft_break_into_begin +
            not_ended + begin_folded + not_ended + std::string(bo_uid_other) +
            std::string(anna_21) + "\n\n" + broken + begin_with_a_lone_cr +
            std::string(anna_at_work) + std::string(bo_uid_same);
  }
  body += "trailing text\n";
  auto whole = prepare_book(body, body.size() + 1);
  ASSERT_GT(whole.cards, 20u);
  ASSERT_FALSE(whole.rejected.empty());
  EXPECT_EQ(described(prepare_book(body, 1)), described(whole));
  EXPECT_EQ(described(prepare_book(body, 200)), described(whole));
  // The default reads a small body whole.
  EXPECT_EQ(described(prepare_book(body)), described(whole));
}

TEST(is_blank_body, only_whitespace_and_a_bom_are_blank) {
  EXPECT_TRUE(is_blank_body(""));
  EXPECT_TRUE(is_blank_body(" \r\n\t"));
  EXPECT_TRUE(is_blank_body("\xEF\xBB\xBF\r\n"));
  EXPECT_FALSE(is_blank_body("x"));
  EXPECT_FALSE(is_blank_body(anna));
}

} // namespace
} // namespace simsync::core
