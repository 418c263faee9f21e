#pragma once

// HTTP content codings (RFC 9110 §8.4): a request body sent gzip- or
// deflate-compressed is inflated before anything reads it, within the body
// limit (a small compressed body may inflate to gigabytes: a decompression
// bomb is stopped as soon as it passes the limit, never inflated whole);
// an answer is gzip-compressed for a client that accepts it.

#include "net/problem.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace simsync::net {

/// A request body with its Content-Encoding undone.
struct decoded_body {
  /// The decoded bytes; empty when the body was not encoded (identity): the
  /// original bytes then stand, with no copy made.
  std::string bytes;
  bool decoded = false;         ///< true when `bytes` replace the original body
  std::optional<problem> error; ///< set: answer it and read nothing
};

/// Undoes `content_encoding` (the header's value; empty when absent) on
/// `body`. identity or none: nothing to do. gzip (x-gzip) and deflate (zlib
/// format, or raw deflate as some clients send it): inflated in steps,
/// stopping with 413 `body-too-large` as soon as the output passes
/// `max_bytes`. A corrupt or truncated stream is 400 `malformed-body`;
/// another coding, or a list of several, 415 `unsupported-content-encoding`.
decoded_body decode_content(std::string_view content_encoding, std::string_view body,
                            std::size_t max_bytes);

/// True if an Accept-Encoding header value accepts gzip: `gzip` (or
/// `x-gzip`), or else `*`, with a q-value above 0.
bool accepts_gzip(std::string_view accept_encoding);

/// `bytes` as one gzip member.
std::string gzip(std::string_view bytes);

/// Answers at least this large are compressed when the client accepts gzip;
/// smaller ones would barely shrink for the work.
inline constexpr std::size_t compress_from_bytes = 1024;

} // namespace simsync::net
