#include "actors/replication_backlog.hpp"

#include <gtest/gtest.h>

namespace simsync {
namespace {

constexpr std::uint64_t now = 1'800'000'000'000; // a Unix time in ms

TEST(replication_backlog, links_start_down_and_shed_nothing) {
  replication_backlog backlog{{"carrier-b", "carrier-c"}};
  auto worst = backlog.furthest_behind(now);
  EXPECT_EQ(worst.peer, "");
  EXPECT_EQ(worst.lag_ms, 0u);
}

TEST(replication_backlog, names_the_up_link_furthest_behind) {
  replication_backlog backlog{{"carrier-b", "carrier-c"}};
  backlog.waiting_since(0, now - 300);
  backlog.waiting_since(1, now - 2500);
  auto worst = backlog.furthest_behind(now);
  EXPECT_EQ(worst.peer, "carrier-c");
  EXPECT_EQ(worst.lag_ms, 2500u);
  // A stuck window falls further behind as time passes, without a new report.
  EXPECT_EQ(backlog.furthest_behind(now + 1000).lag_ms, 3500u);
}

TEST(replication_backlog, a_link_that_is_down_or_idle_is_not_behind) {
  replication_backlog backlog{{"carrier-b", "carrier-c"}};
  backlog.waiting_since(0, now - 300);
  backlog.waiting_since(1, now - 2500);
  backlog.down(1); // its peer is away: the outbox keeps what it is owed
  EXPECT_EQ(backlog.furthest_behind(now).peer, "carrier-b");
  backlog.waiting_since(0, 0); // nothing waits
  EXPECT_EQ(backlog.furthest_behind(now).lag_ms, 0u);
}

TEST(replication_backlog, an_entry_stamped_ahead_of_our_clock_is_not_behind) {
  replication_backlog backlog{{"carrier-b"}};
  backlog.waiting_since(0, now + 5); // Redis's clock may run a little ahead
  EXPECT_EQ(backlog.furthest_behind(now).lag_ms, 0u);
}

} // namespace
} // namespace simsync
