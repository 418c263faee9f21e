#include "load/histogram.hpp"

#include <gtest/gtest.h>

#include <random>

using simsync::load::histogram;

TEST(histogram, empty_reports_zero) {
  histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(50), 0u);
  EXPECT_EQ(h.percentile(99.9), 0u);
  EXPECT_EQ(h.min(), 0u);
}

TEST(histogram, small_values_are_exact) {
  histogram h;
  for (std::uint64_t v = 1; v <= 100; ++v)
    h.record(v);
  EXPECT_EQ(h.percentile(50), 50u);
  EXPECT_EQ(h.percentile(99), 99u);
  EXPECT_EQ(h.percentile(100), 100u);
  EXPECT_EQ(h.percentile(0), 1u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

TEST(histogram, bucket_edges_bound_every_value_within_one_64th) {
  for (std::uint64_t v :
       {127ull, 128ull, 129ull, 1000ull, 25'000ull, 999'999ull, 123'456'789ull}) {
    auto i = histogram::index_of(v);
    auto edge = histogram::upper_edge(i);
    EXPECT_GE(edge, v) << v;
    EXPECT_LE(static_cast<double>(edge - v), static_cast<double>(v) / 64.0) << v;
    if (i > 0) {
      EXPECT_LT(histogram::upper_edge(i - 1), v) << v;
    }
  }
}

TEST(histogram, indexes_are_monotonic) {
  std::size_t last = 0;
  for (std::uint64_t v = 0; v < 200'000; v += 7) {
    auto i = histogram::index_of(v);
    EXPECT_GE(i, last);
    last = i;
  }
}

TEST(histogram, percentiles_of_a_uniform_sample_within_relative_error) {
  histogram h;
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> values;
  for (int i = 0; i < 100'000; ++i) {
    auto v = 1000 + rng() % 99'000; // 1 ms .. 100 ms in microseconds
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {50.0, 90.0, 99.0, 99.9}) {
    auto exact = values[static_cast<std::size_t>(q / 100 * values.size()) - 1];
    auto got = h.percentile(q);
    EXPECT_GE(got, exact) << q;
    EXPECT_LE(static_cast<double>(got), exact * (1 + 1.0 / 64) + 1) << q;
  }
}

TEST(histogram, a_tail_is_not_hidden_by_the_bulk) {
  histogram h;
  for (int i = 0; i < 998; ++i)
    h.record(1000);
  h.record(500'000);
  h.record(500'000);
  EXPECT_LE(h.percentile(99), 1016u);
  EXPECT_GE(h.percentile(99.9), 500'000u);
  EXPECT_EQ(h.max(), 500'000u);
}

TEST(histogram, merge_adds_counts) {
  histogram a, b;
  a.record(10);
  b.record(20);
  b.record(30);
  a.merge(b);
  EXPECT_EQ(a.count(), 3u);
  EXPECT_EQ(a.min(), 10u);
  EXPECT_EQ(a.max(), 30u);
  EXPECT_EQ(a.percentile(50), 20u);
}

TEST(histogram, values_beyond_the_range_are_clamped_and_counted) {
  histogram h(1'000'000);
  h.record(5'000'000);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.max(), 1'000'000u);
}
