#include "core/line_id.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

using namespace simsync::core;

namespace {

const std::string msisdn = "+8613800138000";
const std::string iccid = "89860012345678901234";

keyring ring(char lookup_byte) {
  return keyring({{1, std::string(32, '\x11')}}, 1, std::string(32, lookup_byte));
}

bool is_base64url(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
  });
}

} // namespace

TEST(line_id, is_22_characters_of_base64url_without_the_number) {
  auto id = line_id_of(ring('\x33'), msisdn);
  EXPECT_EQ(id.size(), 22u);
  EXPECT_TRUE(is_base64url(id)) << id;
  EXPECT_EQ(id.find("13800138000"), std::string::npos);
}

TEST(line_id, is_the_same_for_every_node_holding_the_carriers_keys) {
  EXPECT_EQ(line_id_of(ring('\x33'), msisdn), line_id_of(ring('\x33'), msisdn));
  EXPECT_EQ(iccid_hash_of(ring('\x33'), iccid), iccid_hash_of(ring('\x33'), iccid));
}

TEST(line_id, differs_between_carriers_numbers_and_an_iccid_of_the_same_digits) {
  EXPECT_NE(line_id_of(ring('\x33'), msisdn), line_id_of(ring('\x44'), msisdn));
  EXPECT_NE(line_id_of(ring('\x33'), msisdn), line_id_of(ring('\x33'), "+8613800138001"));
  EXPECT_NE(line_id_of(ring('\x33'), iccid), iccid_hash_of(ring('\x33'), iccid));
  auto hashed = iccid_hash_of(ring('\x33'), iccid);
  EXPECT_EQ(hashed.size(), 22u);
  EXPECT_TRUE(is_base64url(hashed)) << hashed;
}
