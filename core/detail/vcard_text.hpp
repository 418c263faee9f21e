#pragma once
// Byte-level helpers of the vCard codec: ASCII case, UTF-8 validation, the
// transfer encodings and charset conversion. Header-only because core/ builds
// only its top-level .cpp files.

#include "core/digest.hpp"

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iconv.h>
#include <string>
#include <string_view>
#include <unordered_map>

namespace simsync::core::detail {

// -- ASCII text ---------------------------------------------------------------

inline char ascii_upper(char c) {
  return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c;
}
inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_upper(a[i]) != ascii_upper(b[i]))
      return false;
  return true;
}

inline bool istarts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

inline void append_upper(std::string& out, std::string_view text) {
  for (char c : text)
    out.push_back(ascii_upper(c));
}

inline void append_lower(std::string& out, std::string_view text) {
  for (char c : text)
    out.push_back(ascii_lower(c));
}

inline std::string to_upper(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_upper(out, text);
  return out;
}

inline std::string to_lower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_lower(out, text);
  return out;
}

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

inline std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back()))
    text.remove_suffix(1);
  return text;
}

// -- UTF-8 --------------------------------------------------------------------

inline bool is_ascii(std::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  // Eight bytes at a time: nearly all vCard text of Latin names is ASCII.
  for (; end - p >= 8; p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    if (word & 0x8080808080808080ull)
      return false;
  }
  for (; p < end; ++p)
    if (static_cast<unsigned char>(*p) >= 0x80)
      return false;
  return true;
}

/// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
inline bool is_valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    unsigned lead = *p;
    std::size_t more;
    std::uint32_t cp;
    if (lead >= 0xC2 && lead <= 0xDF) {
      more = 1;
      cp = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      more = 2;
      cp = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      more = 3;
      cp = lead & 0x07;
    } else {
      return false;
    }
    if (static_cast<std::size_t>(end - p) <= more)
      return false;
    for (std::size_t i = 1; i <= more; ++i) {
      if ((p[i] & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (more == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)))
      return false;
    if (more == 3 && (cp < 0x10000 || cp > 0x10FFFF))
      return false;
    p += more + 1;
  }
  return true;
}

// -- transfer encodings -------------------------------------------------------

/// Decodes QUOTED-PRINTABLE into *out; false on a malformed escape. Soft line
/// breaks left in the text are dropped and an encoded CRLF becomes LF, so the
/// same text decodes the same whichever way a phone wrapped it.
inline bool decode_quoted_printable(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '=') {
      out->push_back(c);
      continue;
    }
    if (i + 1 == in.size())
      break; // a trailing soft break
    if (in[i + 1] == '\r' || in[i + 1] == '\n') {
      i += (in[i + 1] == '\r' && i + 2 < in.size() && in[i + 2] == '\n') ? 2 : 1;
      continue;
    }
    if (i + 2 >= in.size())
      return false;
    int hi = hex_digit_value(in[i + 1]);
    int lo = hex_digit_value(in[i + 2]);
    if (hi < 0 || lo < 0)
      return false;
    char decoded = static_cast<char>(hi * 16 + lo);
    if (decoded == '\n' && !out->empty() && out->back() == '\r')
      out->back() = '\n';
    else
      out->push_back(decoded);
    i += 2;
  }
  return true;
}

namespace base64_class {
inline constexpr unsigned char invalid = 0, alphabet = 1, space = 2, pad = 3;
} // namespace base64_class

inline constexpr std::array<unsigned char, 256> base64_classes = [] {
  std::array<unsigned char, 256> table{};
  for (int c = 'A'; c <= 'Z'; ++c)
    table[c] = base64_class::alphabet;
  for (int c = 'a'; c <= 'z'; ++c)
    table[c] = base64_class::alphabet;
  for (int c = '0'; c <= '9'; ++c)
    table[c] = base64_class::alphabet;
  table['+'] = table['/'] = base64_class::alphabet;
  table[' '] = table['\t'] = table['\r'] = table['\n'] = base64_class::space;
  table['='] = base64_class::pad;
  return table;
}();

/// Validates base64 and writes it to *out without whitespace and with its
/// padding completed: the form in which equal images have equal text, so a
/// photo is hashed without decoding it.
inline bool normalize_base64(std::string_view in, std::string* out) {
  out->resize(in.size() + 2);
  char* dst = out->data();
  std::size_t n = 0;
  std::size_t pads = 0;
  for (char c : in) {
    unsigned char cls = base64_classes[static_cast<unsigned char>(c)];
    if (cls == base64_class::alphabet) {
      if (pads != 0)
        return false;
      dst[n++] = c;
    } else if (cls == base64_class::pad) {
      ++pads;
    } else if (cls != base64_class::space) {
      return false;
    }
  }
  std::size_t rem = n % 4;
  if (rem == 1 || pads > 2 || (pads != 0 && rem + pads != 4))
    return false;
  for (; rem != 0 && rem < 4; ++rem)
    dst[n++] = '=';
  out->resize(n);
  return true;
}

// -- charsets -----------------------------------------------------------------

/// True for names of charsets that are UTF-8 or a subset of it: no iconv.
inline bool is_utf8_charset(std::string_view charset) {
  return iequals(charset, "UTF-8") || iequals(charset, "UTF8") ||
         iequals(charset, "US-ASCII") || iequals(charset, "ASCII");
}

/// Charsets whose ASCII bytes are not ASCII characters: ASCII input still
/// needs converting.
inline bool is_wide_charset(std::string_view charset) {
  return istarts_with(charset, "UTF-16") || istarts_with(charset, "UTF-32") ||
         istarts_with(charset, "UCS") || istarts_with(charset, "UTF-7");
}

/// Per-thread iconv descriptors, one per charset: opening one costs far more
/// than converting a name, and a book holds many cards in the same charset.
class iconv_cache {
public:
  iconv_cache() = default;
  iconv_cache(const iconv_cache&) = delete;
  iconv_cache& operator=(const iconv_cache&) = delete;
  ~iconv_cache() {
    for (auto& entry : descriptors_)
      if (entry.second != failed())
        iconv_close(entry.second);
  }

  /// The descriptor converting `charset` to UTF-8, or failed() if iconv does
  /// not know it (remembered too, so a bad name is looked up once).
  iconv_t get(std::string_view charset) {
    std::string key = to_upper(charset);
    auto found = descriptors_.find(key);
    if (found != descriptors_.end())
      return found->second;
    iconv_t cd = iconv_open("UTF-8", key.c_str());
    descriptors_.emplace(std::move(key), cd);
    return cd;
  }

  static iconv_t failed() {
    return reinterpret_cast<iconv_t>(static_cast<std::intptr_t>(-1));
  }

private:
  std::unordered_map<std::string, iconv_t> descriptors_;
};

enum class conversion { ok, unknown_charset, invalid_text };

/// Converts `in` from `charset` to UTF-8 into *out. ASCII text in an
/// ASCII-compatible charset is copied as it is, once iconv knows the charset.
inline conversion convert_to_utf8(std::string_view charset, std::string_view in,
                                  std::string* out) {
  thread_local iconv_cache cache;
  iconv_t cd = cache.get(charset);
  if (cd == iconv_cache::failed())
    return conversion::unknown_charset;
  if (!is_wide_charset(charset) && is_ascii(in)) {
    out->assign(in);
    return conversion::ok;
  }
  iconv(cd, nullptr, nullptr, nullptr, nullptr); // reset shift state
  // Four output bytes per input byte cover every charset into UTF-8.
  out->resize(in.size() * 4 + 4);
  char* src = const_cast<char*>(in.data()); // iconv's API is not const-correct
  std::size_t src_left = in.size();
  char* dst = out->data();
  std::size_t dst_left = out->size();
  if (iconv(cd, &src, &src_left, &dst, &dst_left) == static_cast<std::size_t>(-1) ||
      iconv(cd, nullptr, nullptr, &dst, &dst_left) == static_cast<std::size_t>(-1))
    return conversion::invalid_text;
  out->resize(out->size() - dst_left);
  return conversion::ok;
}

} // namespace simsync::core::detail
