#include "metrics/latency_histogram.hpp"

#include "metrics/log_linear_buckets.hpp"

#include <algorithm>

namespace simsync::metrics {

std::size_t latency_histogram::bucket_of(std::uint64_t us) {
  return std::min(bucket_count - 1, log_linear::bucket_of(us, bucket_bits));
}

std::uint64_t latency_histogram::lower_us(std::size_t bucket) {
  return log_linear::lower_bound(bucket, bucket_bits);
}

std::vector<std::uint64_t> latency_histogram::counts() const {
  auto last = counts_.size();
  while (last > 0 && counts_[last - 1] == 0)
    --last;
  return {counts_.begin(), counts_.begin() + static_cast<std::ptrdiff_t>(last)};
}

latency_histogram latency_histogram::from(const std::vector<std::uint64_t>& counts,
                                          std::uint64_t sum_us) {
  latency_histogram h;
  for (std::size_t i = 0; i < counts.size() && i < bucket_count; ++i) {
    h.counts_[i] = counts[i];
    h.count_ += counts[i];
  }
  h.sum_us_ = sum_us;
  return h;
}

latency_histogram latency_histogram::since(const latency_histogram& earlier) const {
  latency_histogram h;
  // A restarted actor starts from zero: then everything it holds is recent.
  bool restarted = earlier.count_ > count_;
  for (std::size_t i = 0; i < bucket_count; ++i) {
    h.counts_[i] = restarted || earlier.counts_[i] > counts_[i]
                       ? counts_[i]
                       : counts_[i] - earlier.counts_[i];
    h.count_ += h.counts_[i];
  }
  h.sum_us_ =
      restarted || earlier.sum_us_ > sum_us_ ? sum_us_ : sum_us_ - earlier.sum_us_;
  return h;
}

double latency_histogram::quantile_us(double q) const {
  if (count_ == 0)
    return 0;
  auto rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(count_);
  double below = 0;
  for (std::size_t i = 0; i < bucket_count; ++i) {
    auto here = static_cast<double>(counts_[i]);
    if (here > 0 && below + here >= rank) {
      auto lo = static_cast<double>(lower_us(i));
      auto hi = static_cast<double>(lower_us(i + 1));
      return lo + (hi - lo) * std::max(0.0, rank - below) / here;
    }
    below += here;
  }
  return static_cast<double>(lower_us(bucket_count));
}

std::uint64_t latency_histogram::count_at_most(std::uint64_t us) const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < bucket_count && lower_us(i + 1) <= us + 1; ++i)
    n += counts_[i];
  return n;
}

} // namespace simsync::metrics
