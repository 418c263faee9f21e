#include "core/bounded_inflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>

namespace simsync::core {

struct inflate_stream::state {
  z_stream z{};
};

namespace {

int window_bits_of(deflate_framing framing) {
  // The widest window reads any stream of its framing.
  switch (framing) {
  case deflate_framing::raw:
    return -MAX_WBITS;
  case deflate_framing::zlib:
    return MAX_WBITS;
  case deflate_framing::gzip:
    return 16 + MAX_WBITS;
  }
  return MAX_WBITS;
}

} // namespace

inflate_stream::inflate_stream(deflate_framing framing)
    : state_(std::make_unique<state>()), framing_(framing) {
  if (inflateInit2(&state_->z, window_bits_of(framing)) != Z_OK)
    throw std::runtime_error("zlib cannot start an inflate stream");
}

inflate_stream::~inflate_stream() {
  inflateEnd(&state_->z);
}

inflate_outcome inflate_stream::inflate_all(std::string_view input, std::string& out,
                                            std::size_t max_bytes,
                                            std::string_view dictionary) {
  z_stream& z = state_->z;
  auto fail = [&out](inflate_status status, std::string detail = {}) {
    out.clear();
    return inflate_outcome{status, std::move(detail)};
  };
  auto start = [&] {
    if (inflateReset(&z) != Z_OK)
      return false;
    // A raw stream's dictionary is set before its first byte.
    return dictionary.empty() ||
           inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dictionary.data()),
                                static_cast<uInt>(dictionary.size())) == Z_OK;
  };
  if (!start())
    return fail(inflate_status::corrupt, "the preset dictionary is refused");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  // One byte past the limit tells a stream that ends exactly at it from one
  // that goes on. Small inputs (cards) mostly fit in the first room.
  const std::size_t ceiling = max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1;
  std::size_t room = std::min(ceiling, std::max<std::size_t>(4 * input.size() + 64, 256));
  out.clear();
  for (;;) {
    std::size_t have = out.size();
    out.resize(room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    z.avail_out = static_cast<uInt>(room - have);
    int rc = inflate(&z, Z_NO_FLUSH);
    out.resize(room - z.avail_out);
    if (out.size() > max_bytes)
      return fail(inflate_status::too_large);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0)
        return {};
      if (framing_ != deflate_framing::gzip)
        return fail(inflate_status::trailing_bytes);
      // Another gzip member follows.
      if (inflateReset(&z) != Z_OK)
        return fail(inflate_status::corrupt, "cannot reset the stream");
      continue;
    }
    if (rc == Z_OK) {
      if (z.avail_out == 0)
        room = std::min(ceiling, 2 * room);
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0)
      return fail(inflate_status::truncated);
    if (rc == Z_BUF_ERROR && z.avail_out == 0) {
      room = std::min(ceiling, 2 * room);
      continue;
    }
    return fail(inflate_status::corrupt, z.msg ? z.msg : "corrupt");
  }
}

} // namespace simsync::core
