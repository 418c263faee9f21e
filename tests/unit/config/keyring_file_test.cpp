#include "config/keyring_file.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace simsync;

namespace {

const std::string hex_one(64, 'a');
const std::string hex_two = std::string(62, '0') + "ff";

std::string error_of(const std::string& text) {
  try {
    config::parse_keyring(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(keyring_file, one_key_is_key_one_with_a_derived_lookup_key) {
  auto raw = config::parse_keyring(std::string(32, 'k'));
  EXPECT_EQ(raw.writer(), 1);
  EXPECT_EQ(raw.seal_keys().at(1), std::string(32, 'k'));
  EXPECT_EQ(raw.lookup_key().size(), 32u);
  EXPECT_NE(raw.lookup_key(), raw.seal_keys().at(1));
  auto hex = config::parse_keyring(hex_one + "\n");
  EXPECT_EQ(hex.seal_keys().at(1), std::string(32, '\xaa'));
}

TEST(keyring_file, a_keyring_names_its_writer_and_lookup_key) {
  auto ring =
      config::parse_keyring("writer = 2\nlookup = \"" + hex_two + "\"\n[keys]\n1 = \"" +
                            hex_one + "\"\n2 = \"" + hex_two + "\"\n");
  EXPECT_EQ(ring.writer(), 2);
  EXPECT_EQ(ring.seal_keys().size(), 2u);
  EXPECT_EQ(ring.seal_keys().at(2).back(), '\xff');
  EXPECT_EQ(ring.lookup_key().back(), '\xff');
}

TEST(keyring_file, a_one_key_file_becomes_a_keyring_without_moving_its_lookup_key) {
  auto one = config::parse_keyring(hex_one);
  auto ring = config::parse_keyring("writer = 2\n[keys]\n1 = \"" + hex_one +
                                    "\"\n2 = \"" + hex_two + "\"\n");
  EXPECT_EQ(ring.lookup_key(), one.lookup_key());
  EXPECT_EQ(ring.lookup_hash("msisdn", "+1"), one.lookup_hash("msisdn", "+1"));
}

TEST(keyring_file, a_bad_keyring_says_what_is_wrong_and_never_shows_a_key) {
  EXPECT_NE(error_of(std::string(31, 's')).find("expected 32 raw bytes, 64 hex digits"),
            std::string::npos);
  EXPECT_NE(error_of("writer = 1\n").find("[keys]"), std::string::npos);
  EXPECT_NE(error_of("[keys]\n1 = \"" + hex_one + "\"\n").find("writer: required"),
            std::string::npos);
  EXPECT_NE(error_of("writer = 3\n[keys]\n1 = \"" + hex_one + "\"\n").find("writer: 3"),
            std::string::npos);
  EXPECT_NE(error_of("writer = 1\n[keys]\n1 = \"abc\"\n").find("keys.1: expected 64 hex"),
            std::string::npos);
  EXPECT_NE(error_of("writer = 1\n[keys]\n0 = \"" + hex_one + "\"\n").find("keys.0"),
            std::string::npos);
  EXPECT_NE(
      error_of("writer = 2\n[keys]\n2 = \"" + hex_two + "\"\n").find("lookup: required"),
      std::string::npos);
  EXPECT_NE(error_of("writer = 1\nlokup = 1\n[keys]\n1 = \"" + hex_one + "\"\n")
                .find("unknown setting \"lokup\""),
            std::string::npos);
  EXPECT_EQ(error_of("writer = 1\n[keys]\n1 = \"" + hex_one + "x\"\n").find(hex_one),
            std::string::npos);
}
