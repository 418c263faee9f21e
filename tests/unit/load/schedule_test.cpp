#include "load/schedule.hpp"

#include <gtest/gtest.h>

using namespace simsync::load;
using namespace std::chrono_literals;

TEST(open_loop_schedule, events_are_due_at_fixed_intervals_from_the_start) {
  auto t0 = clock::now();
  open_loop_schedule s(1000, 2s, t0); // 1 ms apart
  EXPECT_EQ(s.total(), 2000u);
  EXPECT_EQ(s.due(0), t0);
  EXPECT_EQ(s.due(1000), t0 + 1s);
  EXPECT_EQ(s.due(1999) - s.due(1998), std::chrono::duration_cast<clock::duration>(1ms));
}

TEST(open_loop_schedule, due_by_counts_what_is_due_whatever_was_sent) {
  auto t0 = clock::now();
  open_loop_schedule s(100, 1s, t0); // every 10 ms
  EXPECT_EQ(s.due_by(t0 - 1ms), 0u);
  EXPECT_EQ(s.due_by(t0), 1u);
  EXPECT_EQ(s.due_by(t0 + 9ms), 1u);
  EXPECT_EQ(s.due_by(t0 + 10ms), 2u);
  // A client that stalled for half a second owes 50 events at once: the
  // schedule does not slow down with it (no coordinated omission).
  EXPECT_EQ(s.due_by(t0 + 500ms), 51u);
  EXPECT_EQ(s.due_by(t0 + 10s), 100u);
}

TEST(open_loop_schedule, due_by_agrees_with_due) {
  auto t0 = clock::now();
  open_loop_schedule s(333.3, 3s, t0);
  for (std::uint64_t i = 0; i < s.total(); ++i) {
    EXPECT_EQ(s.due_by(s.due(i)), i + 1) << i;
  }
}

TEST(parse_rates, a_list) {
  std::string error;
  EXPECT_EQ(parse_rates("500,1000,2500.5", &error),
            (std::vector<double>{500, 1000, 2500.5}));
  EXPECT_TRUE(error.empty());
}

TEST(parse_rates, a_geometric_step_up) {
  std::string error;
  EXPECT_EQ(parse_rates("500..8000x2", &error),
            (std::vector<double>{500, 1000, 2000, 4000, 8000}));
  EXPECT_EQ(parse_rates("1000..5000x2", &error), (std::vector<double>{1000, 2000, 4000}));
}

TEST(parse_rates, rejects_nonsense) {
  for (auto bad :
       {"", "abc", "500,,1000", "-5", "0", "8000..500x2", "500..8000x1", "500..8000"}) {
    std::string error;
    EXPECT_TRUE(parse_rates(bad, &error).empty()) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}
