#include "metrics/latency_histogram.hpp"

#include <gtest/gtest.h>

#include <random>

using simsync::metrics::latency_histogram;
using namespace std::chrono_literals;

TEST(latency_histogram, buckets_tile_the_range_without_gaps) {
  for (std::size_t i = 0; i + 1 < latency_histogram::bucket_count; ++i) {
    EXPECT_LT(latency_histogram::lower_us(i), latency_histogram::lower_us(i + 1));
    EXPECT_EQ(latency_histogram::bucket_of(latency_histogram::lower_us(i)), i);
    EXPECT_EQ(latency_histogram::bucket_of(latency_histogram::lower_us(i + 1) - 1), i);
  }
}

TEST(latency_histogram, empty_has_no_percentiles) {
  latency_histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.quantile_us(0.99), 0.0);
  EXPECT_TRUE(h.counts().empty());
}

TEST(latency_histogram, percentiles_within_a_quarter_of_the_truth) {
  std::mt19937_64 rng{42};
  std::lognormal_distribution<double> dist{7.0, 1.0}; // median about 1.1 ms
  std::vector<std::uint64_t> values;
  latency_histogram h;
  for (int i = 0; i < 100'000; ++i) {
    auto us = static_cast<std::uint64_t>(dist(rng));
    values.push_back(us);
    h.record(std::chrono::microseconds{us});
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    auto truth = static_cast<double>(values[static_cast<std::size_t>(q * values.size())]);
    EXPECT_NEAR(h.quantile_us(q), truth, truth * 0.25) << "q=" << q;
  }
  EXPECT_EQ(h.count(), 100'000u);
}

TEST(latency_histogram, since_keeps_only_what_came_after) {
  latency_histogram h;
  for (int i = 0; i < 1000; ++i)
    h.record(10us);
  auto earlier = h;
  for (int i = 0; i < 10; ++i)
    h.record(5ms);
  auto recent = h.since(earlier);
  EXPECT_EQ(recent.count(), 10u);
  EXPECT_NEAR(recent.quantile_us(0.5), 5000, 5000 * 0.25);
  EXPECT_EQ(recent.sum_us(), 50'000u);
}

TEST(latency_histogram, since_a_restart_is_everything) {
  latency_histogram before;
  for (int i = 0; i < 100; ++i)
    before.record(1ms);
  latency_histogram after_restart;
  after_restart.record(2ms);
  EXPECT_EQ(after_restart.since(before).count(), 1u);
}

TEST(latency_histogram, round_trips_through_counts) {
  latency_histogram h;
  h.record(3us);
  h.record(700us);
  h.record(2s);
  auto copy = latency_histogram::from(h.counts(), h.sum_us());
  EXPECT_EQ(copy.count(), 3u);
  EXPECT_EQ(copy.sum_us(), h.sum_us());
  EXPECT_EQ(copy.count_at_most(1023), 2u);
  EXPECT_EQ(copy.count_at_most((1u << 21) - 1), 3u);
}

TEST(latency_histogram, count_at_most_a_power_of_two_is_exact) {
  latency_histogram h;
  h.record(1023us);
  h.record(1024us);
  EXPECT_EQ(h.count_at_most(1023), 1u);
  EXPECT_EQ(h.count_at_most(2047), 2u);
}
