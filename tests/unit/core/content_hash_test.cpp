#include "core/content_hash.hpp"

#include <gtest/gtest.h>

namespace simsync::core {
namespace {

TEST(content_hash, hex_is_32_lower_case_digits_and_round_trips) {
  auto h = content_hash::of("BEGIN:VCARD\r\nFN:Li\r\nEND:VCARD\r\n");
  std::string hex = h.hex();
  ASSERT_EQ(hex.size(), 32u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  content_hash back;
  ASSERT_TRUE(content_hash::from_hex(hex, &back));
  EXPECT_EQ(back, h);
}

TEST(content_hash, hex_puts_hi_before_lo) {
  content_hash h{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  EXPECT_EQ(h.hex(), "0123456789abcdeffedcba9876543210");
}

TEST(content_hash, its_bytes_are_what_its_hex_digits_spell) {
  content_hash h{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  EXPECT_EQ(h.bytes(), std::string("\x01\x23\x45\x67\x89\xab\xcd\xef"
                                   "\xfe\xdc\xba\x98\x76\x54\x32\x10",
                                   16));
  std::string out = "kept";
  h.append_bytes(out);
  EXPECT_EQ(out, "kept" + h.bytes());
  EXPECT_EQ(content_hash::from_bytes(h.bytes()), h);
  EXPECT_EQ(content_hash::from_bytes(out.substr(4)), h);
}

TEST(content_hash, from_hex_accepts_upper_case) {
  content_hash h;
  ASSERT_TRUE(content_hash::from_hex("0123456789ABCDEFFEDCBA9876543210", &h));
  EXPECT_EQ(h, (content_hash{0x0123456789abcdefULL, 0xfedcba9876543210ULL}));
}

TEST(content_hash, from_hex_rejects_bad_text_and_leaves_output_alone) {
  const content_hash sentinel{1, 2};
  for (const char* bad :
       {"", "0123", "0123456789abcdeffedcba987654321",
        "0123456789abcdeffedcba98765432100", "0123456789abcdeffedcba987654321g",
        " 123456789abcdeffedcba9876543210"}) {
    content_hash out = sentinel;
    EXPECT_FALSE(content_hash::from_hex(bad, &out)) << '"' << bad << '"';
    EXPECT_EQ(out, sentinel) << '"' << bad << '"';
  }
}

TEST(content_hash, different_bytes_hash_differently) {
  EXPECT_EQ(content_hash::of("a"), content_hash::of("a"));
  EXPECT_NE(content_hash::of("a"), content_hash::of("b"));
  EXPECT_NE(content_hash::of(""), content_hash{});
}

} // namespace
} // namespace simsync::core
