#include "core/base64url.hpp"

#include <cstdint>

namespace simsync::core {

std::string base64url(std::string_view bytes) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char byte : bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += alphabet[(acc >> bits) & 0x3f];
    }
  }
  if (bits > 0)
    out += alphabet[(acc << (6 - bits)) & 0x3f];
  return out;
}

} // namespace simsync::core
