#pragma once

// GET /v1/lines/{msisdn}/pending: what its query and If-None-Match mean.
// Pure functions (no I/O), so they have unit tests of their own.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace simsync::net {

/// The largest page a phone may ask for: a bigger one is refused rather than
/// quietly shortened, so a phone learns the limit at once.
inline constexpr std::uint32_t max_pending_page = 10000;

/// ?next= as the previous page gave it: "<cursor>.<offset>", both decimal.
inline bool plausible_next(std::string_view text) {
  auto dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size() ||
      text.size() > 40)
    return false;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (i != dot && (text[i] < '0' || text[i] > '9'))
      return false;
  return true;
}

/// The ETag of a pending answer: the store's mailbox tag and the vCard
/// version the cards were written in ("orig" for their original bytes), so
/// the same mailbox asked for in another version is another representation.
inline std::string pending_etag(const std::string& mailbox_tag,
                                std::string_view version) {
  return "\"" + mailbox_tag + "-" + std::string(version) + "\"";
}

/// The mailbox tag of the first entity tag in an If-None-Match value that
/// names this `version`; "" when there is none (then no answer is a 304).
/// Weak tags ("W/") compare like strong ones (RFC 9110 If-None-Match uses the
/// weak comparison).
inline std::string known_mailbox_tag(std::string_view header, std::string_view version) {
  auto suffix = "-" + std::string(version);
  while (!header.empty()) {
    auto comma = header.find(',');
    auto item = header.substr(0, comma);
    header =
        comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
      item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
      item.remove_suffix(1);
    if (item.substr(0, 2) == "W/")
      item.remove_prefix(2);
    if (item.size() < 2 || item.front() != '"' || item.back() != '"')
      continue;
    item = item.substr(1, item.size() - 2);
    if (item.size() > suffix.size() && item.substr(item.size() - suffix.size()) == suffix)
      return std::string(item.substr(0, item.size() - suffix.size()));
  }
  return {};
}

} // namespace simsync::net
