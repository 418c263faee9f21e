#include "net/vcard_output.hpp"

#include "core/canonical.hpp"

#include <gtest/gtest.h>

namespace simsync::net {
namespace {

const std::string with_uid = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:own-1\r\nFN:Has Uid\r\n"
                             "END:VCARD\r\n";
const std::string without_uid = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:No Uid\r\n"
                                "TEL:+8613911112222\r\nEND:VCARD\r\n";

core::vcard parse(const std::string& text) {
  auto blocks = core::parse_vcards(text);
  EXPECT_EQ(blocks.size(), 1u) << text;
  EXPECT_TRUE(blocks.at(0).ok()) << blocks.at(0).error;
  return blocks.at(0).card;
}

TEST(render_card, a_card_with_its_own_uid_goes_out_as_stored) {
  EXPECT_EQ(render_card(with_uid, std::nullopt, "own-1"), with_uid);
  EXPECT_EQ(core::explicit_uid(
                parse(render_card(with_uid, core::vcard_version::v4_0, "own-1"))),
            "own-1");
}

TEST(render_card, a_uid_written_otherwise_is_still_the_cards_own) {
  for (std::string text :
       {"BEGIN:VCARD\nVERSION:4.0\nitem1.UID:g-1\nFN:A\nEND:VCARD\n",
        "BEGIN:VCARD\nVERSION:4.0\nuid;VALUE=text:g-1\nFN:A\nEND:VCARD\n",
        "BEGIN:VCARD\nVERSION:4.0\nUid:g-1\nFN:A\nEND:VCARD\n"})
    EXPECT_EQ(render_card(text, std::nullopt, "g-1"), text);
}

TEST(render_card, a_card_without_uid_gets_the_one_it_is_stored_under) {
  auto out = render_card(without_uid, std::nullopt, "simsync-abc");
  // The original bytes, with one line more after VERSION, in the card's own breaks.
  EXPECT_EQ(out, "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:simsync-abc\r\nFN:No Uid\r\n"
                 "TEL:+8613911112222\r\nEND:VCARD\r\n");
  for (auto version : {core::vcard_version::v3_0, core::vcard_version::v4_0}) {
    auto card = parse(render_card(without_uid, version, "simsync-abc"));
    EXPECT_EQ(core::explicit_uid(card), "simsync-abc");
    EXPECT_EQ(card.find("FN")->value(), "No Uid");
  }
}

TEST(render_card, lf_breaks_no_version_line_and_an_empty_uid) {
  EXPECT_EQ(render_card("BEGIN:VCARD\nFN:A\nEND:VCARD\n", std::nullopt, "u-1"),
            "BEGIN:VCARD\nUID:u-1\nFN:A\nEND:VCARD\n");
  EXPECT_EQ(
      render_card("BEGIN:VCARD\nVERSION:4.0\nUID:\nFN:A\nEND:VCARD", std::nullopt, "u-2"),
      "BEGIN:VCARD\nVERSION:4.0\nUID:u-2\nFN:A\nEND:VCARD");
  auto rewritten = parse(render_card("BEGIN:VCARD\nVERSION:4.0\nUID:\nFN:A\nEND:VCARD",
                                     core::vcard_version::v3_0, "u-3"));
  EXPECT_EQ(core::explicit_uid(rewritten), "u-3");
  int uids = 0;
  for (const auto& p : rewritten.properties)
    uids += p.name == "UID";
  EXPECT_EQ(uids, 1);
}

TEST(render_card, a_card_in_another_charset_goes_out_as_utf8_3_0_with_its_uid) {
  // "张" in GBK, declared as such (2.1).
  std::string gbk =
      "BEGIN:VCARD\r\nVERSION:2.1\r\nFN;CHARSET=GBK:\xd5\xc5\r\nEND:VCARD\r\n";
  auto card = parse(render_card(gbk, std::nullopt, "simsync-gbk"));
  EXPECT_EQ(card.version, "3.0");
  EXPECT_EQ(card.find("FN")->value(), "\xe5\xbc\xa0");
  EXPECT_EQ(core::explicit_uid(card), "simsync-gbk");
}

TEST(render_card, a_card_that_no_longer_parses_goes_out_as_stored) {
  std::string broken = "BEGIN:VCARD\r\nFN:cut";
  EXPECT_EQ(render_card(broken, std::nullopt, "u"), broken);
}

} // namespace
} // namespace simsync::net
