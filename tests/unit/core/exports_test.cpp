// The real-world exports of tests/data/ read by the codec: every card is
// taken, and what a phone encoded (QP, GBK, base64, data: URIs, groups)
// decodes to the text and bytes it stands for.
#include "core/book.hpp"
#include "core/canonical.hpp"
#include "core/vcard.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace simsync::core {
namespace {

/// tests/data/, found from this file's own path so no build setting is needed.
std::string data_path(const std::string& name) {
  std::string here = __FILE__; // .../tests/unit/core/exports_test.cpp
  auto tests = here.rfind("/unit/core/");
  if (tests == std::string::npos)
    throw std::runtime_error("cannot locate tests/data from " + here);
  return here.substr(0, tests) + "/data/" + name;
}

std::string read_data(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + data_path(name));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The cards of a body; fails the test on a block that did not parse.
std::vector<vcard> cards_of(const std::string& body) {
  std::vector<vcard> out;
  for (auto& block : parse_vcards(body)) {
    EXPECT_TRUE(block.ok()) << "line " << block.error_line << ": " << block.error;
    out.push_back(block.card);
  }
  return out;
}

/// The values of every property `name` of a card, first component each.
std::vector<std::string> values_of(const vcard& card, std::string_view name) {
  std::vector<std::string> out;
  for (const auto& p : card.properties)
    if (p.name == name)
      out.push_back(p.value());
  return out;
}

std::string base64_decode(const std::string& text) {
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    auto at = alphabet.find(c);
    if (at == std::string::npos)
      continue; // padding
    bits = (bits << 6) | static_cast<unsigned>(at);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

/// The photo of the iOS and 4.0 files: a 178-byte JPEG.
void expect_the_red_jpeg(const vcard_property& photo) {
  EXPECT_TRUE(photo.binary);
  EXPECT_EQ(photo.media_type, "image/jpeg");
  auto bytes = base64_decode(photo.value());
  ASSERT_EQ(bytes.size(), 178u);
  EXPECT_EQ(bytes.substr(0, 4), "\xff\xd8\xff\xe0");
  EXPECT_EQ(bytes.substr(bytes.size() - 2), "\xff\xd9");
}

struct export_file {
  const char* name;
  std::size_t cards;
};

class every_export : public ::testing::TestWithParam<export_file> {};

TEST_P(every_export, every_card_is_taken_with_a_distinct_uid) {
  auto body = read_data(GetParam().name);
  auto book = prepare_book(body);
  for (const auto& r : book.rejected)
    ADD_FAILURE() << "card " << r.index << " line " << r.line << ": " << r.reason;
  ASSERT_EQ(book.entries.size(), GetParam().cards);
  for (size_t i = 0; i < book.entries.size(); ++i)
    for (size_t j = i + 1; j < book.entries.size(); ++j) {
      EXPECT_NE(book.entries[i].uid, book.entries[j].uid);
      EXPECT_NE(book.entries[i].hash, book.entries[j].hash);
    }
  // Rewritten as 3.0 and as 4.0, every card means the same.
  auto cards = cards_of(body);
  ASSERT_EQ(cards.size(), GetParam().cards);
  for (const auto& card : cards)
    for (auto version : {vcard_version::v3_0, vcard_version::v4_0}) {
      auto text = serialize(card, version);
      auto again = cards_of(text);
      ASSERT_EQ(again.size(), 1u) << text;
      EXPECT_EQ(canonical_form(again[0]), canonical_form(card)) << text;
    }
}

INSTANTIATE_TEST_SUITE_P(tests_data, every_export,
                         ::testing::Values(export_file{"android-2.1-qp-utf8.vcf", 5},
                                           export_file{"featurephone-2.1-gbk.vcf", 4},
                                           export_file{"ios-3.0-photo.vcf", 3},
                                           export_file{"v4.0-groups.vcf", 5}),
                         [](const auto& info) {
                           std::string out;
                           for (char c : std::string(info.param.name))
                             out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return out;
                         });

TEST(android_export, quoted_printable_utf8_decodes_across_soft_line_breaks) {
  auto cards = cards_of(read_data("android-2.1-qp-utf8.vcf"));
  ASSERT_EQ(cards.size(), 5u);
  const auto* n = cards[0].find("N");
  ASSERT_NE(n, nullptr);
  ASSERT_GE(n->values.size(), 2u);
  EXPECT_EQ(n->values[0], "张");
  EXPECT_EQ(n->values[1], "伟");
  EXPECT_EQ(values_of(cards[0], "FN"), std::vector<std::string>{"张伟"});
  EXPECT_TRUE(cards[0].find("TEL")->has_type("cell"));
  EXPECT_EQ(values_of(cards[0], "EMAIL"),
            std::vector<std::string>{"zhang.wei@example.com"});
  EXPECT_TRUE(cards[0].find("EMAIL")->has_type("home"));
  // Soft line breaks, one of them inside a UTF-8 sequence.
  EXPECT_EQ(
      values_of(cards[1], "NOTE"),
      std::vector<std::string>{"周一到周五上午九点到下午六点在办公室，周末请打手机。"
                               "地址：北京市海淀区中关村大街一号"});
  EXPECT_EQ(values_of(cards[2], "FN"),
            std::vector<std::string>{"欧阳娜娜（北京大学计算机科学技术系研究生办公室）"});
  const auto* adr = cards[2].find("ADR");
  ASSERT_NE(adr, nullptr);
  ASSERT_EQ(adr->values.size(), 7u);
  EXPECT_EQ(adr->values[2], "海淀区颐和园路5号");
  EXPECT_EQ(adr->values[3], "北京");
  EXPECT_EQ(adr->values[6], "中国");
  EXPECT_EQ(values_of(cards[4], "TEL").size(), 3u);
}

TEST(featurephone_export, gbk_names_decode_to_utf8_raw_and_quoted_printable) {
  auto cards = cards_of(read_data("featurephone-2.1-gbk.vcf"));
  ASSERT_EQ(cards.size(), 4u);
  EXPECT_EQ(values_of(cards[0], "FN"), std::vector<std::string>{"张伟"});
  ASSERT_GE(cards[0].find("N")->values.size(), 2u);
  EXPECT_EQ(cards[0].find("N")->values[1], "伟");
  EXPECT_EQ(values_of(cards[1], "FN"), std::vector<std::string>{"刘德华"});
  EXPECT_EQ(cards[1].find("N")->values[1], "德华");
  const auto* adr = cards[2].find("ADR");
  ASSERT_NE(adr, nullptr);
  ASSERT_GE(adr->values.size(), 7u);
  EXPECT_EQ(adr->values[2], "天河路385号");
  EXPECT_EQ(adr->values[3], "广州");
  EXPECT_EQ(cards[3].find("N")->value(), "中国移动客服");
  // Bare 2.1 parameters are types.
  const auto& home = cards[0].properties;
  bool seen_home_voice = false;
  for (const auto& p : home)
    if (p.name == "TEL" && p.has_type("home") && p.has_type("voice")) {
      seen_home_voice = true;
      EXPECT_EQ(normalize_number(p.value()), "01062345678");
    }
  EXPECT_TRUE(seen_home_voice);
  EXPECT_TRUE(cards[1].find("TEL")->has_type("pref"));
}

TEST(ios_export, groups_escapes_and_the_photo) {
  auto cards = cards_of(read_data("ios-3.0-photo.vcf"));
  ASSERT_EQ(cards.size(), 3u);
  const auto& zhang = cards[0];
  EXPECT_EQ(explicit_uid(zhang), "7C1A4D3E-2B9F-4E58-9A61-0F3B8C2D5E71");
  const auto* org = zhang.find("ORG");
  ASSERT_NE(org, nullptr);
  EXPECT_EQ(org->value(), "华为技术有限公司, 北京研究所");
  EXPECT_EQ(values_of(zhang, "NOTE"),
            std::vector<std::string>{"周一, 周三上午在深圳; 其余时间在北京。\n带伞。"});
  bool labelled = false;
  for (const auto& p : zhang.properties)
    if (p.group == "item1" && p.name == "X-ABLABEL") {
      labelled = true;
      EXPECT_EQ(p.value(), "办公室");
    }
  EXPECT_TRUE(labelled);
  const auto* photo = zhang.find("PHOTO");
  ASSERT_NE(photo, nullptr);
  expect_the_red_jpeg(*photo);
  EXPECT_EQ(cards[1].find("ORG")->value(), "Example, Inc.");
}

TEST(v40_export, groups_list_members_and_data_uri_photo) {
  auto cards = cards_of(read_data("v4.0-groups.vcf"));
  ASSERT_EQ(cards.size(), 5u);
  EXPECT_EQ(explicit_uid(cards[0]), "urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1");
  const auto* tel = cards[0].find("TEL");
  ASSERT_NE(tel, nullptr);
  EXPECT_TRUE(tel->has_type("cell"));
  EXPECT_EQ(normalize_number(tel->value()), "+8613800138000");
  const auto* photo = cards[0].find("PHOTO");
  ASSERT_NE(photo, nullptr);
  expect_the_red_jpeg(*photo);
  EXPECT_EQ(values_of(cards[3], "KIND"), std::vector<std::string>{"group"});
  EXPECT_EQ(values_of(cards[3], "MEMBER"),
            (std::vector<std::string>{"urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1",
                                      "urn:uuid:9d6c2f1a-7e4b-4b8e-a3c5-2f1e0d9c8b7a"}));
  EXPECT_EQ(values_of(cards[4], "MEMBER").size(), 3u);
}

} // namespace
} // namespace simsync::core
