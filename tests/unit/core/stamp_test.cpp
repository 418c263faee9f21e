#include "core/stamp.hpp"

#include <gtest/gtest.h>

namespace simsync::core {
namespace {

constexpr std::uint64_t ms = hlc_logical_per_ms;

TEST(hybrid_clock, follows_wall_time_when_it_moves_forward) {
  hybrid_clock c;
  EXPECT_EQ(c.tick(1000), 1000 * ms);
  EXPECT_EQ(c.tick(1005), 1005 * ms);
  EXPECT_EQ(c.last(), 1005 * ms);
}

TEST(hybrid_clock, is_strictly_monotonic_when_wall_time_stalls_or_goes_back) {
  hybrid_clock c;
  std::uint64_t prev = c.tick(2000);
  for (std::uint64_t wall : {2000u, 2000u, 1990u, 1500u, 2000u}) {
    std::uint64_t now = c.tick(wall);
    EXPECT_GT(now, prev) << "wall " << wall;
    prev = now;
  }
}

TEST(hybrid_clock, stays_near_wall_time_after_a_stall) {
  hybrid_clock c;
  c.tick(2000);
  for (int i = 0; i < 10; ++i)
    c.tick(2000);
  // Ten logical steps stay inside the same millisecond...
  EXPECT_LT(c.last(), 2001 * ms);
  // ...and the next real millisecond takes over again.
  EXPECT_EQ(c.tick(2001), 2001 * ms);
}

TEST(hybrid_clock, observe_moves_past_a_remote_value) {
  hybrid_clock c;
  c.tick(1000);
  std::uint64_t remote = 5000 * ms + 7;
  c.observe(remote);
  EXPECT_EQ(c.last(), remote);
  EXPECT_GT(c.tick(1001), remote);
}

TEST(hybrid_clock, observe_of_an_older_value_changes_nothing) {
  hybrid_clock c;
  c.tick(3000);
  c.observe(1000 * ms);
  EXPECT_EQ(c.last(), 3000 * ms);
}

TEST(stamp, orders_by_hlc_then_carrier_then_line) {
  stamp a{10, "carrier-b", "+2"};
  stamp b{11, "carrier-a", "+1"};
  stamp c{11, "carrier-b", "+1"};
  stamp d{11, "carrier-b", "+2"};
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, d);
  EXPECT_FALSE(d < a);
  EXPECT_EQ(d, (stamp{11, "carrier-b", "+2"}));
  EXPECT_NE(c, d);
}

} // namespace
} // namespace simsync::core
