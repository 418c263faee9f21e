#include "core/digest.hpp"

#include <gtest/gtest.h>

using namespace simsync::core;

TEST(digest, hex_is_lower_case_two_digits_per_byte) {
  EXPECT_EQ(hex(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
  EXPECT_EQ(hex(""), "");
}

TEST(digest, hex_reads_back_in_either_case) {
  std::string bytes("\x00\x7f\x80\xfe\xff", 5);
  EXPECT_EQ(bytes_of_hex(hex(bytes)), bytes);
  EXPECT_EQ(bytes_of_hex("00A0Ff"), std::string("\x00\xa0\xff", 3));
  EXPECT_EQ(bytes_of_hex(""), std::string());
}

TEST(digest, hex_refuses_an_odd_length_and_other_characters) {
  EXPECT_EQ(bytes_of_hex("abc"), std::nullopt);
  EXPECT_EQ(bytes_of_hex("0g"), std::nullopt);
  EXPECT_EQ(bytes_of_hex("0 "), std::nullopt);
  EXPECT_EQ(bytes_of_hex("x0"), std::nullopt);
}

TEST(digest, sha256_matches_the_standard_vector) {
  // FIPS 180-2, appendix B.1.
  EXPECT_EQ(hex(sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(digest, hmac_sha256_matches_the_standard_vector) {
  // RFC 4231, test case 2.
  EXPECT_EQ(hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_NE(hmac_sha256("Jefe", "what do ya want for nothing!"),
            hmac_sha256("Jefe", "what do ya want for nothing?"));
}
