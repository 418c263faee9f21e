#include "core/seal.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace simsync::core {
namespace {

const std::string key(seal_key_size, '\x11');
const std::string other_key(seal_key_size, '\x22');
const std::string info = "{\"name\":\"张伟\",\"id_number\":\"11010519491231002X\"}";

TEST(seal, round_trips) {
  auto sealed = seal(key, info);
  EXPECT_EQ(sealed.size(), info.size() + seal_overhead);
  EXPECT_EQ(sealed.find("11010519491231002X"), std::string::npos);
  auto opened = open(key, sealed);
  ASSERT_TRUE(opened.has_value());
  EXPECT_EQ(*opened, info);
}

TEST(seal, round_trips_empty_and_binary_plaintext) {
  auto empty = open(key, seal(key, ""));
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(*empty, "");
  std::string binary("\0\xff\x01", 3);
  EXPECT_EQ(open(key, seal(key, binary)), binary);
}

TEST(seal, uses_a_fresh_nonce_each_time) {
  EXPECT_NE(seal(key, info), seal(key, info));
}

TEST(seal, detects_any_flipped_bit) {
  auto sealed = seal(key, info);
  for (std::size_t i = 0; i < sealed.size(); ++i) {
    auto tampered = sealed;
    tampered[i] = static_cast<char>(tampered[i] ^ 0x01);
    EXPECT_FALSE(open(key, tampered).has_value()) << "byte " << i;
  }
}

TEST(seal, detects_truncation_and_extension) {
  auto sealed = seal(key, info);
  EXPECT_FALSE(open(key, sealed.substr(0, sealed.size() - 1)).has_value());
  EXPECT_FALSE(open(key, sealed + "x").has_value());
  EXPECT_FALSE(open(key, sealed.substr(0, seal_overhead - 1)).has_value());
  EXPECT_FALSE(open(key, "").has_value());
}

TEST(seal, wrong_key_does_not_open) {
  EXPECT_FALSE(open(other_key, seal(key, info)).has_value());
}

TEST(seal, each_value_is_sealed_under_the_key_it_was_given_as_keys_alternate) {
  // A thread keeps its cipher context and sets a key only when it changes.
  auto first = seal(key, info);
  auto second = seal(other_key, info);
  auto third = seal(key, info);
  EXPECT_EQ(open(key, first), info);
  EXPECT_FALSE(open(key, second).has_value());
  EXPECT_EQ(open(other_key, second), info);
  EXPECT_FALSE(open(other_key, third).has_value());
  EXPECT_EQ(open(key, third), info);
}

TEST(seal, a_value_that_does_not_open_leaves_the_next_one_unharmed) {
  auto sealed = seal(key, info);
  auto tampered = sealed;
  tampered.back() = static_cast<char>(tampered.back() ^ 0x01);
  EXPECT_FALSE(open(key, tampered).has_value());
  EXPECT_EQ(open(key, sealed), info);
  EXPECT_EQ(open(key, seal(key, "")), "");
}

TEST(seal, context_is_bound) {
  auto sealed = seal(key, info, "idcode-1");
  EXPECT_EQ(open(key, sealed, "idcode-1"), info);
  EXPECT_FALSE(open(key, sealed, "idcode-2").has_value());
  EXPECT_FALSE(open(key, sealed).has_value());
}

TEST(seal, rejects_keys_of_the_wrong_size) {
  EXPECT_THROW(seal(std::string(16, 'k'), info), std::invalid_argument);
  EXPECT_THROW(open(std::string(31, 'k'), seal(key, info)), std::invalid_argument);
}

} // namespace
} // namespace simsync::core
