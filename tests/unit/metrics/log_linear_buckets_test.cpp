#include "metrics/log_linear_buckets.hpp"

#include <gtest/gtest.h>

namespace simsync::metrics::log_linear {
namespace {

// Values below 2^bits are exact; the first split octave follows at once.
static_assert(bucket_of(7, 3) == 7 && bucket_of(8, 3) == 8 && bucket_of(9, 3) == 8);
static_assert(lower_bound(8, 3) == 8 && lower_bound(9, 3) == 10 &&
              lower_bound(12, 3) == 16);

TEST(log_linear_buckets, every_value_lies_in_its_bucket_within_the_precision) {
  for (unsigned bits : {3u, 7u}) {
    const double precision = 1.0 / static_cast<double>(1u << (bits - 1));
    for (std::uint64_t v = 0; v < 5'000'000; v = v < 300 ? v + 1 : v + v / 97 + 1) {
      auto b = bucket_of(v, bits);
      auto lo = lower_bound(b, bits);
      auto hi = lower_bound(b + 1, bits); // the next bucket starts where this one ends
      ASSERT_LE(lo, v) << "bits " << bits << " value " << v;
      ASSERT_LT(v, hi) << "bits " << bits << " value " << v;
      ASSERT_LE(static_cast<double>(hi - lo - 1), precision * static_cast<double>(v))
          << "bits " << bits << " value " << v;
    }
  }
}

TEST(log_linear_buckets, buckets_follow_each_other_without_gaps) {
  for (unsigned bits : {3u, 7u}) {
    const std::size_t exact = std::size_t{1} << bits;
    const std::size_t below_2_to_60 = exact + (60 - bits) * (exact / 2);
    for (std::size_t b = 0; b < below_2_to_60; ++b)
      ASSERT_EQ(bucket_of(lower_bound(b, bits), bits), b) << "bits " << bits;
  }
}

} // namespace
} // namespace simsync::metrics::log_linear
