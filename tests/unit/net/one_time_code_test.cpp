// One-time codes and the per-address limit of the registration endpoints.
#include "net/address_limiter.hpp"
#include "net/one_time_code.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace simsync::net;

TEST(one_time_code, codes_are_six_digits_and_vary) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    auto code = new_code();
    EXPECT_TRUE(is_code(code)) << code;
    seen.insert(code);
  }
  EXPECT_GT(seen.size(), 190u); // 200 draws from a million values rarely collide
  EXPECT_FALSE(is_code("12345"));
  EXPECT_FALSE(is_code("12345a"));
  EXPECT_FALSE(is_code("1234567"));
}

TEST(one_time_code, the_hash_is_keyed_and_bound_to_the_number) {
  auto h = code_hash("key-1", "+8613800138000", "123456");
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h, code_hash("key-1", "+8613800138000", "123456"));
  EXPECT_NE(h, code_hash("key-2", "+8613800138000", "123456"));
  EXPECT_NE(h, code_hash("key-1", "+8613800138001", "123456"));
  EXPECT_NE(h, code_hash("key-1", "+8613800138000", "123457"));
  EXPECT_EQ(h.find("123456"), std::string::npos);
}

TEST(one_time_code, the_message_holds_the_code_and_its_lifetime) {
  EXPECT_EQ(code_message("042042", std::chrono::seconds{300}),
            "simsync code 042042 (valid 5 minutes). Never share it.");
  EXPECT_EQ(code_message("042042", std::chrono::seconds{30}),
            "simsync code 042042 (valid 1 minute). Never share it.");
}

TEST(address_limiter, an_address_gets_its_share_per_window_and_others_theirs) {
  address_limiter limiter{3, std::chrono::seconds{60}};
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(limiter.admit("10.0.0.1", t0), 0u);
  auto wait = limiter.admit("10.0.0.1", t0 + std::chrono::seconds{20});
  EXPECT_EQ(wait, 40'000u);
  EXPECT_EQ(limiter.admit("10.0.0.2", t0), 0u);
  // A new window starts afresh.
  EXPECT_EQ(limiter.admit("10.0.0.1", t0 + std::chrono::seconds{61}), 0u);
}
