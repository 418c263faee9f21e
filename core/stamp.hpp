#pragma once

#include <cstdint>
#include <string>
#include <tuple>

namespace simsync::core {

/// Hybrid logical clock values are physical milliseconds times this factor
/// plus a logical counter: one decimal number that Lua (doubles) compares
/// exactly until the year 2255, and that orders like the pair it encodes.
inline constexpr std::uint64_t hlc_logical_per_ms = 1000;

/// Who wrote a change and when: (hybrid logical clock, origin carrier, origin
/// line). Totally ordered, so every replica picks the same winner.
struct stamp {
  std::uint64_t hlc = 0;
  std::string carrier;
  std::string line; ///< the origin line's line id at its carrier (core/line_id.hpp)

  friend bool operator<(const stamp& a, const stamp& b) {
    return std::tie(a.hlc, a.carrier, a.line) < std::tie(b.hlc, b.carrier, b.line);
  }
  friend bool operator==(const stamp& a, const stamp& b) {
    return std::tie(a.hlc, a.carrier, a.line) == std::tie(b.hlc, b.carrier, b.line);
  }
  friend bool operator!=(const stamp& a, const stamp& b) { return !(a == b); }
};

/// Wall time as Unix milliseconds: what the hybrid clock follows, and what
/// Redis stream ids and replication lag are read against.
std::uint64_t unix_now_ms();

/// A hybrid logical clock: never goes backwards, stays close to wall time,
/// and moves past every stamp it has seen.
class hybrid_clock {
public:
  /// A new value for a local event at wall time `physical_ms`.
  std::uint64_t tick(std::uint64_t physical_ms);
  /// Moves the clock past a remote value.
  void observe(std::uint64_t remote_hlc);
  std::uint64_t last() const { return last_; }

private:
  std::uint64_t last_ = 0;
};

} // namespace simsync::core
