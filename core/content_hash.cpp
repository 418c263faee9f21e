#include "core/content_hash.hpp"

#include "core/big_endian.hpp"
#include "core/digest.hpp"

#include <xxhash.h>

namespace simsync::core {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

} // namespace

std::string content_hash::hex() const {
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = hex_digits[(hi >> (4 * i)) & 0xf];
    out[31 - i] = hex_digits[(lo >> (4 * i)) & 0xf];
  }
  return out;
}

std::string content_hash::bytes() const {
  std::string out;
  append_bytes(out);
  return out;
}

void content_hash::append_bytes(std::string& out) const {
  append_big_endian(out, hi);
  append_big_endian(out, lo);
}

content_hash content_hash::from_bytes(std::string_view bytes) {
  return content_hash{read_big_endian(bytes), read_big_endian(bytes.substr(8))};
}

bool content_hash::from_hex(std::string_view text, content_hash* out) {
  if (text.size() != 32)
    return false;
  content_hash h;
  for (std::size_t i = 0; i < 32; ++i) {
    int v = hex_digit_value(text[i]);
    if (v < 0)
      return false;
    std::uint64_t& half = i < 16 ? h.hi : h.lo;
    half = (half << 4) | static_cast<std::uint64_t>(v);
  }
  *out = h;
  return true;
}

content_hash content_hash::of(std::string_view bytes) {
  XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return content_hash{h.high64, h.low64};
}

} // namespace simsync::core
