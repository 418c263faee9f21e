#pragma once

// The bucket layout of both latency histograms (the node's,
// metrics/latency_histogram, and the load tool's, load/histogram), in the
// manner of HdrHistogram. With `bits`, values below 2^bits have a bucket each
// (exact); above, each power of two [2^k, 2^(k+1)) is split into
// 2^(bits-1) equal buckets, so a bucket is narrower than 1/2^(bits-1) of the
// values in it. The two histograms differ in `bits` (precision against size).

#include <cstddef>
#include <cstdint>

namespace simsync::metrics::log_linear {

/// The bucket holding `value`.
constexpr std::size_t bucket_of(std::uint64_t value, unsigned bits) {
  const std::uint64_t exact = std::uint64_t{1} << bits;
  if (value < exact)
    return static_cast<std::size_t>(value);
  unsigned k = 63u - static_cast<unsigned>(__builtin_clzll(value)); // 2^k <= value
  unsigned shift = k - (bits - 1);
  auto sub = (value >> shift) - exact / 2; // (value >> shift) is in [exact/2, exact)
  return static_cast<std::size_t>(exact + (k - bits) * (exact / 2) + sub);
}

/// The smallest value bucket `index` holds.
constexpr std::uint64_t lower_bound(std::size_t index, unsigned bits) {
  const std::uint64_t exact = std::uint64_t{1} << bits;
  if (index < exact)
    return index;
  auto rest = index - exact;
  auto k = static_cast<unsigned>(rest / (exact / 2)) + bits;
  auto sub = rest % (exact / 2) + exact / 2;
  return sub << (k - (bits - 1));
}

} // namespace simsync::metrics::log_linear
