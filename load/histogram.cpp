#include "load/histogram.hpp"

#include "metrics/log_linear_buckets.hpp"

#include <algorithm>
#include <cmath>

namespace simsync::load {

std::size_t histogram::index_of(std::uint64_t value) {
  return metrics::log_linear::bucket_of(value, sub_bucket_bits);
}

std::uint64_t histogram::upper_edge(std::size_t index) {
  return metrics::log_linear::lower_bound(index + 1, sub_bucket_bits) - 1;
}

histogram::histogram(std::uint64_t highest)
    : highest_(highest), counts_(index_of(highest) + 1, 0) {}

void histogram::record(std::uint64_t value) {
  value = std::min(value, highest_);
  ++counts_[index_of(value)];
  ++count_;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  sum_ += value;
}

void histogram::merge(const histogram& other) {
  auto n = std::min(counts_.size(), other.counts_.size());
  for (std::size_t i = 0; i < n; ++i)
    counts_[i] += other.counts_[i];
  count_ += other.count_;
  if (other.count_) {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  sum_ += other.sum_;
}

void histogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
}

double histogram::mean() const {
  return count_ ? static_cast<double>(sum_ / count_) : 0.0;
}

std::uint64_t histogram::percentile(double q) const {
  if (count_ == 0)
    return 0;
  q = std::clamp(q, 0.0, 100.0);
  // The rank of the value asked for, 1-based: at least the first one.
  auto rank =
      static_cast<std::uint64_t>(std::ceil(q / 100.0 * static_cast<double>(count_)));
  rank = std::max<std::uint64_t>(rank, 1);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank)
      return std::min(upper_edge(i), max_);
  }
  return max_;
}

} // namespace simsync::load
