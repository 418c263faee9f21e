#include "core/identity.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace simsync::core {
namespace {

user_info normalized(std::string_view name, std::string_view id) {
  auto r = normalize_user_info(name, id);
  EXPECT_TRUE(r.info.has_value()) << r.error;
  return r.info.value_or(user_info{});
}

// -- normalize_user_info -----------------------------------------------------------

TEST(normalize_user_info, trims_unicode_whitespace_and_collapses_inner_runs) {
  // U+3000 ideographic space, tab, U+00A0 no-break space.
  auto info = normalized("\xE3\x80\x80 Li \t\xC2\xA0 Wei\xE3\x80\x80", "x");
  EXPECT_EQ(info.name, "Li Wei");
}

TEST(normalize_user_info, keeps_chinese_names_intact) {
  EXPECT_EQ(normalized(" 张伟 ", "x").name, "张伟");
}

TEST(normalize_user_info, composes_to_nfc) {
  // "e" + U+0301 combining acute -> U+00E9.
  EXPECT_EQ(normalized("Jos\x65\xCC\x81", "x").name, "Jos\xC3\xA9");
  EXPECT_EQ(normalized("Jos\x65\xCC\x81", "x"), normalized("Jos\xC3\xA9", "x"));
}

TEST(normalize_user_info, id_number_is_upper_cased_without_spaces) {
  EXPECT_EQ(normalized("Li", " 110105 19491231 002x\xE3\x80\x80").id_number,
            "11010519491231002X");
}

TEST(normalize_user_info, rejects_invalid_utf8) {
  auto r = normalize_user_info("Li\xFF", "123456");
  EXPECT_FALSE(r.info);
  EXPECT_NE(r.error.find("name"), std::string::npos);
  r = normalize_user_info("Li", "\xC3(");
  EXPECT_FALSE(r.info);
  EXPECT_NE(r.error.find("id_number"), std::string::npos);
}

TEST(normalize_user_info, rejects_empty_fields) {
  auto r = normalize_user_info(" \xE3\x80\x80 ", "123456");
  EXPECT_FALSE(r.info);
  EXPECT_EQ(r.error, "name is empty");
  r = normalize_user_info("Li", "  ");
  EXPECT_FALSE(r.info);
  EXPECT_EQ(r.error, "id_number is empty");
}

// -- idcode -----------------------------------------------------------------------

const std::string key(32, 'k');

TEST(idcode, is_64_lower_case_hex_digits) {
  auto code = idcode(key, normalized("张伟", "11010519491231002X"));
  ASSERT_EQ(code.size(), 64u);
  EXPECT_EQ(code.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(idcode, same_person_same_code_whatever_the_spelling) {
  EXPECT_EQ(idcode(key, normalized("张伟", "11010519491231002X")),
            idcode(key, normalized("\xE3\x80\x80张伟 ", "110105 19491231002x")));
}

TEST(idcode, differs_by_person_and_by_key) {
  auto base = idcode(key, normalized("张伟", "11010519491231002X"));
  EXPECT_NE(base, idcode(key, normalized("张伟", "110105194912310029")));
  EXPECT_NE(base, idcode(key, normalized("张伟伟", "11010519491231002X")));
  EXPECT_NE(base, idcode(std::string(32, 'K'), normalized("张伟", "11010519491231002X")));
}

TEST(idcode, field_boundaries_are_unambiguous) {
  EXPECT_NE(idcode(key, user_info{"ab", "C123456"}),
            idcode(key, user_info{"abC", "123456"}));
}

TEST(idcode, matches_hmac_sha256_of_the_documented_encoding) {
  // HMAC-SHA256 with key "key" over
  // "simsync-idcode-v1" 00000001 "a" 00000001 "B", computed with
  // `printf 'simsync-idcode-v1\0\0\0\1a\0\0\0\1B' | openssl dgst -sha256 -hmac key`.
  EXPECT_EQ(idcode("key", user_info{"a", "B"}),
            "12e23347af6d00cb7f85cd6316dfca805404e8532d1a77dbc1a6968b00268502");
}

TEST(idcode, rejects_an_empty_key) {
  EXPECT_THROW(idcode("", user_info{"a", "b"}), std::invalid_argument);
}

// -- validate_id_number -------------------------------------------------------------

TEST(validate_id_number, accepts_valid_resident_ids) {
  EXPECT_TRUE(validate_id_number("11010519491231002X").ok())
      << validate_id_number("11010519491231002X").reason;
  // Born on a leap day.
  EXPECT_TRUE(validate_id_number("310101200002291237").ok())
      << validate_id_number("310101200002291237").reason;
  EXPECT_TRUE(validate_id_number("440524198001010013").ok());
}

TEST(validate_id_number, rejects_a_wrong_check_character) {
  auto r = validate_id_number("110105194912310021");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.reason.find("check character"), std::string::npos) << r.reason;
  r = validate_id_number("11010519491231002A");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.reason.find("0-9 or X"), std::string::npos) << r.reason;
}

TEST(validate_id_number, rejects_implausible_birth_dates) {
  // Each carries a correct check character so only the date is wrong.
  for (std::string id17 : {"11010519491331002", "11010519490230002", "11010518991231002",
                           "11010529991231002", "11010519490229002"}) {
    int sum = 0;
    static constexpr int weights[] = {7, 9, 10, 5,  8, 4, 2, 1, 6,
                                      3, 7, 9,  10, 5, 8, 4, 2};
    for (int i = 0; i < 17; ++i)
      sum += (id17[i] - '0') * weights[i];
    std::string id = id17 + "10X98765432"[sum % 11];
    auto r = validate_id_number(id);
    EXPECT_FALSE(r.ok()) << id;
    EXPECT_NE(r.reason.find("birth date"), std::string::npos) << id << ": " << r.reason;
  }
}

TEST(validate_id_number, accepts_other_alphanumeric_formats) {
  EXPECT_TRUE(validate_id_number("E12345678").ok());
  EXPECT_TRUE(validate_id_number("AB1234").ok());
  EXPECT_TRUE(validate_id_number("A1234567890123456789").ok());
}

TEST(validate_id_number, rejects_bad_lengths_and_characters) {
  EXPECT_FALSE(validate_id_number("").ok());
  EXPECT_FALSE(validate_id_number("A1234").ok());
  EXPECT_FALSE(validate_id_number("A12345678901234567890").ok());
  auto r = validate_id_number("E1234-5678");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.reason.find("letters and digits"), std::string::npos) << r.reason;
  EXPECT_FALSE(validate_id_number("张伟123456").ok());
}

// -- validate_msisdn ----------------------------------------------------------------

TEST(validate_msisdn, accepts_e164_numbers) {
  EXPECT_TRUE(validate_msisdn("+8613800138000").ok());
  EXPECT_TRUE(validate_msisdn("+12025550123").ok());
  EXPECT_TRUE(validate_msisdn("+12345678").ok());
  EXPECT_TRUE(validate_msisdn("+123456789012345").ok());
}

TEST(validate_msisdn, rejects_non_e164_with_a_reason) {
  for (const char* bad : {"", "8613800138000", "+1234567", "+1234567890123456",
                          "+0613800138000", "+86 138 0013 8000", "+86138001380a0"}) {
    auto r = validate_msisdn(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_FALSE(r.reason.empty()) << bad;
  }
  EXPECT_NE(validate_msisdn("+0613800138000").reason.find("0"), std::string::npos);
}

} // namespace
} // namespace simsync::core
