#include "core/card_compression.hpp"

#include "core/vcard.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace simsync::core;

namespace {

const std::string ada = "BEGIN:VCARD\r\nVERSION:3.0\r\n"
                        "UID:5f0c7e2a-91d4-4b6e-a3c1-7d2e9b804f16\r\n"
                        "N:Lovelace;Ada;;;\r\nFN:Ada Lovelace\r\n"
                        "TEL;TYPE=CELL:+44 20 7946 0958\r\n"
                        "EMAIL;TYPE=INTERNET:ada@analytical.example\r\nEND:VCARD\r\n";

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

std::string random_bytes(std::size_t n) {
  std::mt19937 gen(7);
  std::string out(n, '\0');
  for (auto& c : out)
    c = static_cast<char>(gen());
  return out;
}

} // namespace

TEST(card_compression, no_card_compresses_to_more_than_its_bound) {
  // What a peer's compressed card may take (actors/incoming_entries.cpp).
  // 380 random bytes are a small card that deflate's fixed codes would take
  // past the bound (9 bits for every byte from 144 on).
  for (const std::string& card : {ada, std::string(), random_bytes(380),
                                  random_bytes(1000), random_bytes(1 << 20)}) {
    auto stored = compress_card(card);
    EXPECT_TRUE(is_compressed_card(stored));
    EXPECT_LE(stored.size(), compressed_card_bound(card.size())) << card.size();
  }
  EXPECT_FALSE(is_compressed_card(ada));
  EXPECT_FALSE(is_compressed_card(""));
  EXPECT_LT(compressed_card_bound(1 << 20), (1u << 20) + (1u << 18))
      << "the bound is not much more than the card";
}

TEST(card_compression, a_card_comes_back_as_it_was_given) {
  std::string every_byte;
  for (int b = 0; b < 256; ++b)
    every_byte += static_cast<char>(b);
  std::string photo = ada.substr(0, ada.size() - 11) +
                      "PHOTO;ENCODING=b;TYPE=JPEG:" + std::string(40'000, 'Q') +
                      random_bytes(20'000) + "\r\nEND:VCARD\r\n";
  for (const std::string& card :
       {ada, std::string(), every_byte, photo, random_bytes(1 << 20)}) {
    auto stored = compress_card(card);
    ASSERT_EQ(stored.front(), compressed_card_mark);
    EXPECT_EQ(expand_card(stored), card) << card.size() << " bytes";
  }
}

TEST(card_compression, a_typical_card_shrinks_by_more_than_a_third) {
  // Nothing of this card but vCard's own words is in the dictionary.
  auto stored = compress_card(ada);
  EXPECT_LT(stored.size(), ada.size() * 65 / 100)
      << stored.size() << " of " << ada.size();
}

TEST(card_compression, a_larger_card_is_coded_for_its_own_bytes) {
  // Above a few hundred bytes deflate's fixed codes lose about a sixth to
  // codes built for the card (core/card_compression.cpp): such a card
  // keeps the size zlib's deflate gave it (359 of these 600 bytes).
  const std::string card =
      "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:-//Apple Inc.//iPhone OS 17.1//EN\r\n"
      "N:Johnson;Emily;Rose;;\r\nFN:Emily Rose Johnson\r\n"
      "ORG:Northwind Traders;Sales\r\nTITLE:Regional Manager\r\n"
      "item1.EMAIL;type=INTERNET;type=pref:emily.johnson@northwind.example\r\n"
      "item1.X-ABLabel:_$!<Other>!$_\r\nTEL;type=CELL;type=VOICE;type=pref:+1 (415) "
      "555-0134\r\nTEL;type=WORK;type=VOICE:+1 (415) 555-0199\r\n"
      "item2.ADR;type=HOME;type=pref:;;1420 Market Street Apt 5;San Francisco;CA;94103;"
      "United States\r\nitem2.X-ABADR:us\r\nBDAY:1987-04-12\r\n"
      "NOTE:Met at the Q3 partner summit. Prefers email.\r\n"
      "UID:8F1C2A44-7B1E-4C0B-9D5A-3E2F6A7B8C9D\r\nEND:VCARD\r\n";
  ASSERT_EQ(card.size(), 600u);
  auto stored = compress_card(card);
  EXPECT_EQ(expand_card(stored), card);
  EXPECT_LT(stored.size(), card.size() * 64 / 100) << stored.size() << " of 600";
}

TEST(card_compression, a_card_stored_before_compression_reads_as_it_is) {
  EXPECT_EQ(expand_card(ada), ada);
  EXPECT_EQ(expand_card(""), "");
}

TEST(card_compression, the_dictionary_of_stored_cards_never_changes) {
  // Compressed on 2026-12-03: a card stored then must expand the same for as
  // long as its mark is read. A different dictionary gives other bytes.
  const std::string stored = from_hex(
      "01c36d0848b9699a41b279aa51a2aea5618a89ae499259aa6ea271b2a1ae798a51aa65928581499a"
      "a119c8149ffcb2d49cc4e4546bc7944498e940a6024c9c970b2d044c4c148c0c14cc2d4dcc140c2c"
      "4d2d5052083c861353121d12f312732a4b32931373f4522b12730b725251c20d00");
  EXPECT_EQ(expand_card(stored), ada);
}

TEST(card_compression, a_damaged_or_oversized_stream_does_not_expand) {
  auto stored = compress_card(ada);
  EXPECT_FALSE(expand_card(stored.substr(0, stored.size() / 2)));
  EXPECT_FALSE(expand_card(std::string(1, compressed_card_mark)));
  EXPECT_FALSE(expand_card(stored + "trailing"));
  EXPECT_FALSE(expand_card(std::string(1, compressed_card_mark) + "\xff\xff\xff\xff"));
  EXPECT_FALSE(expand_card(stored, ada.size() - 1));
  EXPECT_EQ(expand_card(stored, ada.size()), ada);
  auto big = compress_card(std::string(1 << 20, 'x'));
  EXPECT_LT(big.size(), 4096u);
  EXPECT_FALSE(expand_card(big, 1 << 19)) << "expanding stops at the bound";
}

TEST(card_compression, no_card_a_node_accepts_starts_with_the_mark) {
  // What tells a compressed card from one stored as it came. A peer's card
  // is taken only when it reads as one card and nothing else
  // (actors/incoming_entries.cpp); a phone's card is stored from its BEGIN
  // line on.
  const std::string marked = std::string(1, compressed_card_mark) + ada;
  vcard_reader reader{marked};
  vcard_block block;
  bool read = reader.next(&block);
  EXPECT_FALSE(read && block.ok() && reader.skipped_text_line() == 0);
  for (const auto& b : parse_vcards(marked + ada))
    EXPECT_NE(b.bytes.front(), compressed_card_mark);
}
