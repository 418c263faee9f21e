#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace simsync::core {

/// 128-bit hash of a card's canonical form: equal for cards that mean the same.
/// Not a security boundary: it only tells "same content" apart from "changed".
struct content_hash {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;

  /// 32 lower-case hex digits: a record's hash in the text form.
  std::string hex() const;
  /// The 16 bytes those digits spell (hi, then lo, big-endian): the hash as
  /// the store holds it (records in the compact form, a line's base, an
  /// upload's arguments).
  std::string bytes() const;
  /// bytes() appended to `out`, which makes no string of its own.
  void append_bytes(std::string& out) const;
  /// The hash whose bytes() the first 16 bytes of `bytes` are (it must
  /// hold them).
  static content_hash from_bytes(std::string_view bytes);
  /// Parses 32 hex digits; returns false (and leaves *out alone) otherwise.
  static bool from_hex(std::string_view text, content_hash* out);
  /// Hashes arbitrary bytes (XXH3-128).
  static content_hash of(std::string_view bytes);

  friend bool operator==(const content_hash& a, const content_hash& b) {
    return a.hi == b.hi && a.lo == b.lo;
  }
  friend bool operator!=(const content_hash& a, const content_hash& b) {
    return !(a == b);
  }
};

} // namespace simsync::core
