#include "net/content_coding.hpp"
#include "tests/support/zlib_compress.hpp"

#include <gtest/gtest.h>

#include <string>

namespace simsync::net {
namespace {

std::string gunzip(std::string_view bytes) {
  auto d = decode_content("gzip", bytes, 1u << 30);
  EXPECT_FALSE(d.error) << d.error->detail;
  return d.bytes;
}

const std::string book = [] {
  std::string out;
  for (int i = 0; i < 200; ++i)
    out += "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Contact " + std::to_string(i) +
           "\r\nTEL:+86139" + std::to_string(10000000 + i) + "\r\nEND:VCARD\r\n";
  return out;
}();

TEST(decode_content, identity_and_no_header_leave_the_body_alone) {
  for (auto coding : {"", "identity", " Identity "}) {
    auto d = decode_content(coding, "plain", 10);
    EXPECT_FALSE(d.error) << coding;
    EXPECT_FALSE(d.decoded) << coding;
  }
}

TEST(decode_content, gzip_deflate_and_raw_deflate_are_inflated) {
  for (auto [coding, bits] :
       {std::pair{"gzip", 31}, std::pair{"x-gzip", 31}, std::pair{"GZIP", 31},
        std::pair{"deflate", 15}, std::pair{"deflate", -15}}) {
    auto d =
        decode_content(coding, simsync::testing::zlib_compress(book, bits), book.size());
    ASSERT_FALSE(d.error) << coding << " " << bits << ": " << d.error->detail;
    EXPECT_TRUE(d.decoded);
    EXPECT_EQ(d.bytes, book) << coding << " " << bits;
  }
}

TEST(decode_content, concatenated_gzip_members_are_one_body) {
  auto d = decode_content("gzip",
                          simsync::testing::zlib_compress("abc", 31) +
                              simsync::testing::zlib_compress("def", 31),
                          100);
  ASSERT_FALSE(d.error);
  EXPECT_EQ(d.bytes, "abcdef");
}

TEST(decode_content, output_past_the_limit_is_413_without_inflating_the_rest) {
  // 512 MiB of zeros in about half a megabyte: the decoder must stop at the limit.
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string zeros(1u << 20, '\0');
  std::string bomb;
  std::string chunk(1u << 16, '\0');
  for (int i = 0; i < 512; ++i) {
    z.next_in = reinterpret_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(zeros.size());
    do {
      z.next_out = reinterpret_cast<Bytef*>(chunk.data());
      z.avail_out = static_cast<uInt>(chunk.size());
      deflate(&z, i == 511 ? Z_FINISH : Z_NO_FLUSH);
      bomb.append(chunk.data(), chunk.size() - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  ASSERT_LT(bomb.size(), 1u << 20);
  auto d = decode_content("gzip", bomb, 1u << 20);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->status, 413);
  EXPECT_EQ(d.error->slug, "body-too-large");
  EXPECT_NE(d.error->detail.find("decodes"), std::string::npos);
  EXPECT_TRUE(d.bytes.empty());
  // Exactly at the limit is fine.
  auto at_limit =
      decode_content("gzip", simsync::testing::zlib_compress(book, 31), book.size());
  EXPECT_FALSE(at_limit.error);
  auto below =
      decode_content("gzip", simsync::testing::zlib_compress(book, 31), book.size() - 1);
  ASSERT_TRUE(below.error);
  EXPECT_EQ(below.error->status, 413);
}

TEST(decode_content, corrupt_and_truncated_streams_are_400) {
  auto good = simsync::testing::zlib_compress(book, 31);
  auto truncated = good.substr(0, good.size() / 2);
  auto corrupt = good;
  for (std::size_t i = 20; i < 60; ++i)
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  for (const auto& [coding, body] :
       {std::pair<std::string, std::string>{"gzip", truncated},
        {"gzip", corrupt},
        {"gzip", "not gzip at all"},
        {"gzip", ""},
        {"gzip", good + "trailing junk"},
        {"deflate", simsync::testing::zlib_compress(book, 15) + "x"},
        {"deflate", "\x78\x9c garbage"}}) {
    auto d = decode_content(coding, body, 1u << 20);
    ASSERT_TRUE(d.error) << coding << " " << body.size();
    EXPECT_EQ(d.error->status, 400) << coding;
    EXPECT_EQ(d.error->slug, "malformed-body") << coding;
  }
}

TEST(decode_content, other_codings_and_lists_are_415) {
  for (auto coding :
       {"br", "compress", "zstd", "gzip, gzip", "deflate,gzip", "gzip;q=1"}) {
    auto d = decode_content(coding, "x", 10);
    ASSERT_TRUE(d.error) << coding;
    EXPECT_EQ(d.error->status, 415) << coding;
    EXPECT_EQ(d.error->slug, "unsupported-content-encoding") << coding;
  }
}

TEST(accepts_gzip, reads_codings_and_q_values) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("deflate, gzip;q=0.5"));
  EXPECT_TRUE(accepts_gzip("br;q=1.0, GZIP ; q=0.001"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_TRUE(accepts_gzip("x-gzip"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("br, deflate"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip; q=0.000"));
  EXPECT_FALSE(accepts_gzip("*, gzip;q=0")); // gzip named: its own q counts
  EXPECT_FALSE(accepts_gzip("*;q=0"));
  EXPECT_FALSE(accepts_gzip("gzipped"));
}

TEST(gzip, round_trips_and_shrinks_a_book) {
  auto compressed = gzip(book);
  EXPECT_LT(compressed.size(), book.size() / 3);
  EXPECT_EQ(gunzip(compressed), book);
  EXPECT_EQ(gunzip(gzip("")), "");
}

} // namespace
} // namespace simsync::net
