#pragma once

// Inflating a deflate stream within a byte limit, the one home of it for
// every stream the nodes read: an HTTP body sent compressed and a card kept
// compressed at rest. A small stream may inflate to gigabytes; inflating
// stops as soon as the output passes the limit, never holding more than it.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace simsync::core {

/// The framing around the deflate data.
enum class deflate_framing {
  raw,  ///< no header or checksum (RFC 1951)
  zlib, ///< RFC 1950's header and Adler-32
  gzip, ///< RFC 1952's members, which may follow each other
};

/// How inflating a stream ended.
enum class inflate_status {
  complete,       ///< the whole input was one stream (or gzip members)
  too_large,      ///< the output would pass the limit
  truncated,      ///< the input ends inside the stream
  trailing_bytes, ///< bytes follow the stream's end
  corrupt,        ///< not a valid stream; `detail` says zlib's reason
};

struct inflate_outcome {
  inflate_status status = inflate_status::complete;
  std::string detail; ///< zlib's message when corrupt
};

/// A zlib inflate stream, reset for each input: one may be kept per thread
/// where inputs are small and many (setting one up costs more than a card).
class inflate_stream {
public:
  explicit inflate_stream(deflate_framing framing);
  ~inflate_stream();
  inflate_stream(const inflate_stream&) = delete;
  inflate_stream& operator=(const inflate_stream&) = delete;

  /// Inflates all of `input` into `out` (replacing it), at most `max_bytes`.
  /// `dictionary`: the preset dictionary a raw stream was deflated against
  /// (a zlib or gzip stream that names one is refused as corrupt). On any
  /// status but complete, `out` is left empty.
  inflate_outcome inflate_all(std::string_view input, std::string& out,
                              std::size_t max_bytes, std::string_view dictionary = {});

private:
  struct state;
  std::unique_ptr<state> state_;
  deflate_framing framing_;
};

} // namespace simsync::core
