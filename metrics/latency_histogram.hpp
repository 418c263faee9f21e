#pragma once

// A fixed log-linear histogram of durations, cheap enough to record every
// message an actor handles: recording is one bit scan and one increment.
// Four buckets per power of two of microseconds bound the error of a
// percentile read from it to a quarter of its value (an HDR-style trade).

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace simsync::metrics {

class latency_histogram {
public:
  /// Buckets per power of two: 2^(bucket_bits - 1) (metrics/log_linear_buckets.hpp).
  static constexpr unsigned bucket_bits = 3;
  static constexpr std::size_t sub_buckets = std::size_t{1} << (bucket_bits - 1);
  /// 0..3 µs exactly, then 4 buckets per octave up to 2^40 µs (about 12 days).
  static constexpr std::size_t bucket_count = 4 + 38 * sub_buckets;

  void record(std::chrono::nanoseconds took) {
    auto us = took.count() <= 0 ? 0 : static_cast<std::uint64_t>(took.count() / 1000);
    ++counts_[bucket_of(us)];
    ++count_;
    sum_us_ += us;
  }

  std::uint64_t count() const { return count_; }
  std::uint64_t sum_us() const { return sum_us_; }
  /// Observations per bucket, trailing empty buckets left out (what travels
  /// in a status message).
  std::vector<std::uint64_t> counts() const;

  /// A histogram from counts() and sum_us() of another.
  static latency_histogram from(const std::vector<std::uint64_t>& counts,
                                std::uint64_t sum_us);
  /// What was recorded after `earlier` (a previous copy of this histogram):
  /// the recent distribution, for percentiles of the last interval.
  latency_histogram since(const latency_histogram& earlier) const;

  /// The q-quantile (0 <= q <= 1) in microseconds, interpolated within its
  /// bucket; 0 for an empty histogram.
  double quantile_us(double q) const;

  /// Observations at most `us` microseconds, where `us` is a bucket's upper
  /// bound (what a Prometheus histogram bucket "le" counts).
  std::uint64_t count_at_most(std::uint64_t us) const;

  static std::size_t bucket_of(std::uint64_t us);
  /// Bucket i holds [lower_us(i), lower_us(i + 1)).
  static std::uint64_t lower_us(std::size_t bucket);

private:
  std::array<std::uint64_t, bucket_count> counts_{};
  std::uint64_t count_ = 0;
  std::uint64_t sum_us_ = 0;
};

/// Records the time from construction to destruction, when given a histogram.
class scoped_timer {
public:
  explicit scoped_timer(latency_histogram* into)
      : into_(into), started_(into ? std::chrono::steady_clock::now()
                                   : std::chrono::steady_clock::time_point{}) {}
  ~scoped_timer() {
    if (into_)
      into_->record(std::chrono::steady_clock::now() - started_);
  }
  scoped_timer(const scoped_timer&) = delete;
  scoped_timer& operator=(const scoped_timer&) = delete;

private:
  latency_histogram* into_;
  std::chrono::steady_clock::time_point started_;
};

} // namespace simsync::metrics
