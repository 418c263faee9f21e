#include "actors/replication_backlog.hpp"

#include "core/error.hpp"

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

TEST(replication_backlog, a_refused_phone_waits_the_lag_beyond_the_limit) {
  using ms = std::chrono::milliseconds;
  constexpr ms limit{2000};
  // Just beyond the limit: a second, the least Retry-After can say.
  EXPECT_EQ(replication_backlog::retry_after(2100, limit), ms{1000});
  EXPECT_EQ(replication_backlog::retry_after(5600, limit), ms{3600});
  // A peer stuck for minutes: the phone still comes back within the bound.
  EXPECT_EQ(replication_backlog::retry_after(600'000, limit),
            replication_backlog::max_retry_after);
}

TEST(replication_backlog,
     the_refusal_names_the_peer_for_the_log_and_says_how_long_to_wait) {
  replication_backlog backlog{{"carrier-b", "carrier-c"}};
  backlog.waiting_since(0, now - 1500);
  backlog.waiting_since(1, now - 5500);
  EXPECT_FALSE(backlog.refusal(std::chrono::milliseconds{0}, now)); // 0: never refuse
  EXPECT_FALSE(backlog.refusal(std::chrono::milliseconds{6000}, now));
  auto refused = backlog.refusal(std::chrono::milliseconds{2000}, now);
  ASSERT_EQ(refused, ec::replication_behind);
  ASSERT_EQ(refused.context().size(), 2u);
  EXPECT_NE(refused.context().get_as<std::string>(0).find("carrier-c is 5500 ms behind"),
            std::string::npos)
      << describe(refused);
  EXPECT_EQ(refused.context().get_as<std::string>(1), "3500");
}

} // namespace
} // namespace simsync
