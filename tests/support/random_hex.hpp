#pragma once

#include <random>
#include <string>

namespace simsync::testing {

/// `digits` random hex digits: a test secret no other server or deployment
/// shares.
inline std::string random_hex(int digits) {
  std::random_device source;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < digits; ++i)
    out += hex[source() & 0xf];
  return out;
}

} // namespace simsync::testing
