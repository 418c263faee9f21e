#pragma once
// A latency histogram in the manner of HdrHistogram: log-linear buckets, so
// every recorded value keeps a bounded relative error (under 1/64 here) over the
// whole range at a fixed, small memory cost, and percentiles come out of the
// bucket counts without keeping the samples.

#include <cstdint>
#include <vector>

namespace simsync::load {

class histogram {
public:
  /// Values are whole units (the load tool records microseconds); values
  /// above `highest` are clamped to it and counted.
  explicit histogram(std::uint64_t highest = 3'600'000'000ull);

  void record(std::uint64_t value);
  /// Adds another histogram's counts (same `highest`).
  void merge(const histogram& other);
  void reset();

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  double mean() const;
  /// The value at or below which `q` percent (0-100) of the recorded values
  /// lie, as the upper edge of its bucket (never under-reports); 0 if empty.
  std::uint64_t percentile(double q) const;

  /// Bucket index of a value, and the highest value a bucket holds.
  static std::size_t index_of(std::uint64_t value);
  static std::uint64_t upper_edge(std::size_t index);

  /// Values below sub_buckets are exact; above, sub_buckets/2 linear buckets
  /// per power of two.
  static constexpr unsigned sub_bucket_bits = 7;
  static constexpr std::uint64_t sub_buckets = 1u << sub_bucket_bits;

private:
  std::uint64_t highest_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  long double sum_ = 0;
};

} // namespace simsync::load
