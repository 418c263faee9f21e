#include "core/record.hpp"

#include <gtest/gtest.h>

namespace simsync::core {
namespace {

stamped_card sample() {
  std::string card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:x|y\r\nFN:张伟\r\nEND:VCARD\r\n";
  return stamped_card{stamp{1700000000000123ULL, "carrier-a", "+8613800138000"}, false,
                      content_hash::of(card), card};
}

void expect_same(const stamped_card& a, const stamped_card& b) {
  EXPECT_EQ(a.st, b.st);
  EXPECT_EQ(a.deleted, b.deleted);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.card, b.card);
}

TEST(record, live_card_round_trips_including_bars_in_the_card) {
  auto rec = sample();
  auto back = decode_record(encode_record(rec));
  ASSERT_TRUE(back.has_value());
  expect_same(*back, rec);
}

TEST(record, tombstone_round_trips) {
  stamped_card rec{stamp{42, "carrier-b", "+8618600186000"}, true, content_hash{}, ""};
  auto bytes = encode_record(rec);
  auto back = decode_record(bytes);
  ASSERT_TRUE(back.has_value());
  expect_same(*back, rec);
}

TEST(record, head_is_fixed_width_so_lua_can_compare_it) {
  auto rec = sample();
  auto bytes = encode_record(rec);
  EXPECT_EQ(bytes.substr(0, 17), "1700000000000123|");
  EXPECT_EQ(bytes.substr(17, 32), rec.hash.hex());
  EXPECT_EQ(bytes.substr(49, 3), "|L|");
  stamped_card small{stamp{7, "c", "l"}, true, content_hash{}, ""};
  EXPECT_EQ(encode_record(small),
            "0000000000000007|00000000000000000000000000000000|D|c|l|");
}

TEST(record, rejects_garbage) {
  auto good = encode_record(sample());
  std::vector<std::string> bad{
      "",
      "garbage",
      good.substr(0, 40),                         // cut inside the hash
      "x" + good.substr(1),                       // non-digit in the hlc
      good.substr(0, 17) + "z" + good.substr(18), // non-hex in the hash
      good.substr(0, 50) + "Q" + good.substr(51), // flag neither L nor D
      good.substr(0, 16) + ":" + good.substr(17), // wrong separator
      "0000000000000007|00000000000000000000000000000000|D|carrier-only",
      "0000000000000007|00000000000000000000000000000000|D|c",
  };
  for (const auto& bytes : bad)
    EXPECT_FALSE(decode_record(bytes).has_value()) << '"' << bytes << '"';
}

} // namespace
} // namespace simsync::core
