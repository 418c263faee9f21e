#pragma once

// How the gateway reads a count from a request (?limit=, ?confirm_removals=): plain
// decimal digits, within bounds. Pure, so it has unit tests of its own.

#include <cstdint>
#include <optional>
#include <string_view>

namespace simsync::net {

/// `text` as a whole number from `min` to `max`: decimal digits alone (no
/// sign, space or fraction); nullopt otherwise, and for more than 12 digits,
/// more than any bound the gateway sets.
inline std::optional<std::uint64_t>
whole_number_in(std::string_view text, std::uint64_t min, std::uint64_t max) {
  if (text.empty() || text.size() > 12)
    return std::nullopt;
  std::uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (n < min || n > max)
    return std::nullopt;
  return n;
}

} // namespace simsync::net
