#include "net/content_coding.hpp"

#include "core/bounded_inflate.hpp"

#include <zlib.h>

#include <cctype>
#include <cstdlib>

namespace simsync::net {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

problem malformed(const std::string& coding, const char* what) {
  return problem{400, "malformed-body", "The body cannot be decoded",
                 "the " + coding + " stream is " + what};
}

/// RFC 1950's header: compression method 8 and a check over the first two bytes.
bool has_zlib_header(std::string_view body) {
  if (body.size() < 2)
    return false;
  auto b0 = static_cast<unsigned char>(body[0]);
  auto b1 = static_cast<unsigned char>(body[1]);
  return (b0 & 0x0f) == 8 && ((b0 << 8) | b1) % 31 == 0;
}

/// Inflates the whole body, stopping as soon as it decodes past max_bytes.
decoded_body inflate_bounded(const std::string& coding, core::deflate_framing framing,
                             std::string_view body, std::size_t max_bytes) {
  decoded_body out;
  auto outcome = core::inflate_stream(framing).inflate_all(body, out.bytes, max_bytes);
  switch (outcome.status) {
  case core::inflate_status::complete:
    out.decoded = true;
    break;
  case core::inflate_status::too_large:
    out.error =
        problem{413, "body-too-large", "The body is too large",
                "the " + coding + " body decodes to more than " +
                    std::to_string(max_bytes) + " bytes, the limit for a decoded body"};
    break;
  case core::inflate_status::truncated:
    out.error = malformed(coding, "truncated");
    break;
  case core::inflate_status::trailing_bytes:
    out.error = malformed(coding, "followed by extra bytes");
    break;
  case core::inflate_status::corrupt:
    out.error = malformed(coding, outcome.detail.c_str());
    break;
  }
  return out;
}

/// The q-value of one Accept-Encoding member's parameters ("; q=0.5"); 1 when none.
double q_value(std::string_view params) {
  while (!params.empty()) {
    auto semi = params.find(';');
    auto param = trim(params.substr(0, semi));
    params =
        semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') &&
        trim(param.substr(1)).substr(0, 1) == "=") {
      auto value = std::string(trim(trim(param.substr(1)).substr(1)));
      char* end = nullptr;
      double q = std::strtod(value.c_str(), &end);
      return end == value.c_str() ? 0.0 : q;
    }
  }
  return 1.0;
}

} // namespace

decoded_body decode_content(std::string_view content_encoding, std::string_view body,
                            std::size_t max_bytes) {
  auto coding = lower(trim(content_encoding));
  if (coding.empty() || coding == "identity")
    return {};
  if (coding == "gzip" || coding == "x-gzip")
    return inflate_bounded("gzip", core::deflate_framing::gzip, body, max_bytes);
  if (coding == "deflate")
    return inflate_bounded("deflate",
                           has_zlib_header(body) ? core::deflate_framing::zlib
                                                 : core::deflate_framing::raw,
                           body, max_bytes);
  decoded_body out;
  out.error = problem{
      415, "unsupported-content-encoding", "The body's Content-Encoding is not supported",
      "Content-Encoding " + coding +
          (coding.find(',') != std::string::npos ? " applies several codings; send one of"
                                                 : " is not one of") +
          " gzip, deflate, identity"};
  return out;
}

bool accepts_gzip(std::string_view accept_encoding) {
  std::optional<double> gzip_q;
  std::optional<double> any_q;
  while (!accept_encoding.empty()) {
    auto comma = accept_encoding.find(',');
    auto member = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? std::string_view()
                                                      : accept_encoding.substr(comma + 1);
    auto semi = member.find(';');
    auto coding = lower(trim(member.substr(0, semi)));
    auto q = semi == std::string_view::npos ? 1.0 : q_value(member.substr(semi + 1));
    if (coding == "gzip" || coding == "x-gzip")
      gzip_q = q;
    else if (coding == "*")
      any_q = q;
  }
  if (gzip_q)
    return *gzip_q > 0;
  return any_q && *any_q > 0;
}

std::string gzip(std::string_view bytes) {
  z_stream z{};
  // Fastest level: the gateway compresses on the thread that answers, and a
  // vCard book shrinks well at any level.
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    return {};
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : std::string();
}

} // namespace simsync::net
