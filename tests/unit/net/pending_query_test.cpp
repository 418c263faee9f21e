#include "net/pending_query.hpp"

#include <gtest/gtest.h>

using namespace simsync::net;

TEST(plausible_next, is_a_cursor_and_an_offset) {
  EXPECT_TRUE(plausible_next("7.500"));
  for (auto bad : {"", "7", "7.", ".5", "7.5.1", "a.5", "7.-5", "7 .5"})
    EXPECT_FALSE(plausible_next(bad)) << bad;
}

TEST(known_mailbox_tag, finds_the_tag_for_the_version_asked) {
  auto etag = pending_etag("12.3.4", "4.0");
  EXPECT_EQ(etag, "\"12.3.4-4.0\"");
  EXPECT_EQ(known_mailbox_tag(etag, "4.0"), "12.3.4");
  EXPECT_EQ(known_mailbox_tag("W/" + etag, "4.0"), "12.3.4");
  EXPECT_EQ(known_mailbox_tag("\"1.1.1-orig\", " + etag, "4.0"), "12.3.4");
  EXPECT_EQ(known_mailbox_tag(etag, "3.0"), "") << "another version's tag";
  EXPECT_EQ(known_mailbox_tag("*", "4.0"), "");
  EXPECT_EQ(known_mailbox_tag("12.3.4-4.0", "4.0"), "") << "unquoted";
  EXPECT_EQ(known_mailbox_tag("", "orig"), "");
}
