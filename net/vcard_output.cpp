#include "net/vcard_output.hpp"

#include <cctype>

namespace simsync::net {

namespace {

std::optional<core::vcard_version> parse_version(std::string_view text) {
  if (text == "3.0")
    return core::vcard_version::v3_0;
  if (text == "4.0")
    return core::vcard_version::v4_0;
  return std::nullopt;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The version parameter of the first text/vcard range of an Accept header.
std::optional<core::vcard_version> accepted_version(std::string_view accept) {
  auto text = lower(accept);
  auto at = text.find("text/vcard");
  if (at == std::string::npos)
    return std::nullopt;
  auto end = text.find(',', at);
  auto range = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
  auto param = range.find("version=");
  if (param == std::string::npos)
    return std::nullopt;
  auto value = range.substr(param + 8);
  if (!value.empty() && value.front() == '"')
    value = value.substr(1);
  return parse_version(std::string_view(value).substr(0, 3));
}

} // namespace

version_choice requested_version(std::optional<std::string_view> query_version,
                                 std::string_view accept) {
  version_choice out;
  if (query_version) {
    out.version = parse_version(*query_version);
    if (!out.version)
      out.error = "version must be 3.0 or 4.0";
    return out;
  }
  out.version = accepted_version(accept);
  return out;
}

std::string render_card(const std::string& original,
                        std::optional<core::vcard_version> version) {
  if (!version) {
    if (core::is_valid_utf8(original))
      return original;
    // Original bytes in another charset (a feature phone's GBK) would be
    // mangled in a JSON string or a UTF-8 body: send the same card as 3.0,
    // which is UTF-8 and means the same.
    version = core::vcard_version::v3_0;
  }
  auto blocks = core::parse_vcards(original);
  if (blocks.size() != 1 || !blocks.front().ok())
    return original;
  return core::serialize(blocks.front().card, *version);
}

} // namespace simsync::net
