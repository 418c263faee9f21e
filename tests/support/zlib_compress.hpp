#pragma once

// Bodies compressed by zlib itself, independent of the code under test.

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <string_view>

namespace simsync::testing {

/// `bytes` compressed with the given window bits (31: gzip, 15: zlib-wrapped
/// deflate, -15: raw deflate).
inline std::string zlib_compress(std::string_view bytes, int window_bits) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

} // namespace simsync::testing
