#pragma once

// 64-bit numbers as 8 bytes, most significant first: how the store's
// compact records write an HLC and a content hash's halves, so that the
// scripts read them with struct.unpack('>I8') and compare them bytewise.

#include <cstdint>
#include <string>
#include <string_view>

namespace simsync::core {

inline void append_big_endian(std::string& out, std::uint64_t value) {
  char bytes[8];
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>(value >> (56 - 8 * i));
  out.append(bytes, 8);
}

/// The number the first 8 bytes of `bytes` write (it must hold them).
inline std::uint64_t read_big_endian(std::string_view bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

} // namespace simsync::core
