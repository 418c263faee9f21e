#include "net/whole_number.hpp"

#include <gtest/gtest.h>

using namespace simsync::net;

TEST(whole_number_in, takes_plain_digits_within_the_bounds) {
  EXPECT_EQ(whole_number_in("1", 1, 10000), 1u);
  EXPECT_EQ(whole_number_in("500", 1, 10000), 500u);
  EXPECT_EQ(whole_number_in("10000", 1, 10000), 10000u);
  EXPECT_EQ(whole_number_in("0", 0, 5), 0u);
  EXPECT_EQ(whole_number_in("007", 1, 10), 7u);
  EXPECT_EQ(whole_number_in("999999999999", 0, 999'999'999'999), 999'999'999'999u);
}

TEST(whole_number_in, refuses_anything_else) {
  for (auto bad : {"", "0", "-1", "+5", "1.5", "abc", "10001", "99999", "123456", " 5",
                   "5 ", "1e3", "0x10"})
    EXPECT_FALSE(whole_number_in(bad, 1, 10000)) << bad;
  // More digits than any bound needs: refused before they could overflow.
  EXPECT_FALSE(whole_number_in("1000000000000", 0, UINT64_MAX));
  EXPECT_FALSE(whole_number_in("99999999999999999999999", 0, UINT64_MAX));
}
