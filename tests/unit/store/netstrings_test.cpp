#include "store/netstrings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

using namespace simsync;
using strings = std::vector<std::string_view>;

namespace {

TEST(netstrings, items_split_back_from_what_append_wrote) {
  std::string text;
  for (const char* item : {"", "u1", "0123456789"})
    store::append_netstring(text, item);
  EXPECT_EQ(text, "0:2:u110:0123456789");
  EXPECT_EQ(store::split_netstrings(text), (strings{"", "u1", "0123456789"}));
  EXPECT_EQ(store::split_netstrings(""), strings{});
}

TEST(netstrings, a_length_has_one_spelling) {
  // Found by fuzzing: "00:" read as one empty item, which is written "0:";
  // the store's scripts refuse the same (lib.lua split_netstrings).
  EXPECT_FALSE(store::split_netstrings("00:"));
  EXPECT_FALSE(store::split_netstrings("01:x"));
  EXPECT_FALSE(store::split_netstrings("2:u101:x"));
}

TEST(netstrings, a_damaged_list_is_refused) {
  EXPECT_FALSE(store::split_netstrings("3:ab")) << "shorter than its length";
  EXPECT_FALSE(store::split_netstrings("x:a"));
  EXPECT_FALSE(store::split_netstrings(":a"));
  EXPECT_FALSE(store::split_netstrings("2:ab3"));
  EXPECT_FALSE(store::split_netstrings("1234567890:a")) << "a length of ten digits";
}

} // namespace
