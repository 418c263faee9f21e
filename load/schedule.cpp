#include "load/schedule.hpp"

#include <cmath>
#include <cstdlib>

namespace simsync::load {

open_loop_schedule::open_loop_schedule(double rate, std::chrono::nanoseconds duration,
                                       clock::time_point start)
    : rate_(rate), start_(start) {
  auto seconds = std::chrono::duration<double>(duration).count();
  total_ = rate > 0 && seconds > 0
               ? static_cast<std::uint64_t>(std::floor(rate * seconds))
               : 0;
}

clock::time_point open_loop_schedule::due(std::uint64_t i) const {
  // Computed from i, not accumulated, so rounding never drifts.
  auto offset = std::chrono::duration<double>(static_cast<double>(i) / rate_);
  return start_ + std::chrono::duration_cast<clock::duration>(offset);
}

std::uint64_t open_loop_schedule::due_by(clock::time_point now) const {
  if (now < start_)
    return 0;
  auto elapsed = std::chrono::duration<double>(now - start_).count();
  auto n = static_cast<std::uint64_t>(std::floor(elapsed * rate_)) + 1;
  // Guard the floating point edges: event n-1 must be due, event n not.
  while (n > 0 && due(n - 1) > now)
    --n;
  while (n < total_ && due(n) <= now)
    ++n;
  return n < total_ ? n : total_;
}

namespace {

bool parse_positive(const std::string& text, double* out) {
  if (text.empty())
    return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && *out > 0 && std::isfinite(*out);
}

} // namespace

std::vector<double> parse_rates(const std::string& text, std::string* error) {
  std::vector<double> rates;
  auto dots = text.find("..");
  if (dots != std::string::npos) {
    auto x = text.find('x', dots);
    double from = 0, to = 0, factor = 0;
    if (x == std::string::npos || !parse_positive(text.substr(0, dots), &from) ||
        !parse_positive(text.substr(dots + 2, x - dots - 2), &to) ||
        !parse_positive(text.substr(x + 1), &factor) || factor <= 1 || to < from) {
      *error = "rates: expected FROM..TOxFACTOR with FROM <= TO and FACTOR > 1, got '" +
               text + "'";
      return {};
    }
    for (double r = from; r <= to * (1 + 1e-9); r *= factor)
      rates.push_back(r);
    return rates;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos)
      comma = text.size();
    double r = 0;
    if (!parse_positive(text.substr(pos, comma - pos), &r)) {
      *error = "rates: expected positive numbers separated by commas, got '" + text + "'";
      return {};
    }
    rates.push_back(r);
    pos = comma + 1;
  }
  return rates;
}

} // namespace simsync::load
