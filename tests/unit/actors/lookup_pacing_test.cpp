// How a node paces a peer carrier's directory lookups (actors/lookup_pacing).
#include "actors/lookup_pacing.hpp"

#include <gtest/gtest.h>

using namespace simsync;
using namespace std::chrono_literals;

namespace {

const lookup_pacer::clock::time_point t0{};

} // namespace

TEST(lookup_pacing, a_burst_passes_at_once_and_the_next_lookups_wait_their_turn) {
  lookup_pacer pacer{{10, 100}};
  EXPECT_EQ(pacer.admit("b", 100, t0), 0ms);
  EXPECT_EQ(pacer.admit("b", 1, t0), 100ms);
  EXPECT_EQ(pacer.admit("b", 10, t0), 1100ms); // behind the one already waiting
}

TEST(lookup_pacing, the_budget_refills_with_time_up_to_the_burst) {
  lookup_pacer pacer{{10, 100}};
  EXPECT_EQ(pacer.admit("b", 100, t0), 0ms);
  EXPECT_EQ(pacer.admit("b", 50, t0 + 5s), 0ms);  // 50 back after five seconds
  EXPECT_EQ(pacer.admit("b", 1, t0 + 5s), 100ms); // and no more
  // A long quiet spell refills the burst, never more.
  EXPECT_EQ(pacer.admit("b", 100, t0 + 1h), 0ms);
  EXPECT_EQ(pacer.admit("b", 1, t0 + 1h), 100ms);
}

TEST(lookup_pacing, each_peer_has_its_own_budget) {
  lookup_pacer pacer{{10, 100}};
  EXPECT_EQ(pacer.admit("b", 150, t0), 5000ms);
  EXPECT_EQ(pacer.admit("c", 100, t0), 0ms);
}

TEST(lookup_pacing, a_wait_never_grows_beyond_the_longest_delay) {
  // A link that times out resends its window; the lookups it resends must not
  // push every later one out further and further.
  lookup_pacer pacer{{10, 100, 30s}};
  EXPECT_EQ(pacer.admit("b", 100, t0), 0ms);
  for (int resend = 0; resend < 10; ++resend)
    EXPECT_LE(pacer.admit("b", 256, t0), 30000ms);
  EXPECT_EQ(pacer.admit("b", 1, t0), 30000ms);
}

TEST(lookup_pacing, retirements_and_batches_cost_nothing_and_never_wait) {
  lookup_pacer pacer{{10, 100}};
  EXPECT_EQ(pacer.admit("b", 0, t0), 0ms);
  EXPECT_EQ(pacer.admit("b", 100, t0), 0ms);
  EXPECT_EQ(pacer.admit("b", 0, t0), 0ms);
  EXPECT_EQ(pacer.admit("b", 20, t0), 2000ms);
  EXPECT_EQ(pacer.admit("b", 0, t0), 0ms); // not behind the waiting lookups
  EXPECT_EQ(pacer.admit("b", 1, t0), 2100ms);
}
