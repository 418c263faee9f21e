#include "net/vcard_output.hpp"

#include "core/canonical.hpp"

#include <algorithm>
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

/// True if a line of the card starts with "UID:" (any case) and a value
/// follows: the card has a UID of its own. Cards that write it otherwise
/// (a group, parameters) are found by parsing.
bool has_uid_line(std::string_view card) {
  for (std::size_t at = card.find('\n'); at != std::string_view::npos;
       at = card.find('\n', at + 1)) {
    auto line = card.substr(at + 1, card.find('\n', at + 1) - (at + 1));
    if (line.size() > 4 && lower(line.substr(0, 4)) == "uid:") {
      for (char c : line.substr(4))
        if (c != ' ' && c != '\t' && c != '\r')
          return true;
    }
  }
  return false;
}

/// The original bytes with a UID line after BEGIN (and VERSION, which 4.0
/// wants first), in the card's own line breaks; a UID line with no value
/// (which gave the card no UID) is dropped. Everything else is left as it is.
std::string with_uid_line(std::string_view original, const std::string& uid) {
  std::string out;
  out.reserve(original.size() + uid.size() + 8);
  bool inserted = false;
  std::size_t line_no = 0;
  while (!original.empty()) {
    auto end = original.find('\n');
    auto line =
        original.substr(0, end == std::string_view::npos ? original.size() : end + 1);
    original.remove_prefix(line.size());
    auto text = lower(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' ||
                             text.back() == ' ' || text.back() == '\t'))
      text.pop_back();
    ++line_no;
    // An empty "UID:" (or "item1.UID;X=y:") is what left the card without one.
    auto colon = text.find(':');
    auto name = text.substr(0, std::min(colon, text.find(';')));
    auto dot = name.rfind('.');
    if (dot != std::string::npos)
      name = name.substr(dot + 1);
    if (colon != std::string::npos && colon + 1 == text.size() && name == "uid" &&
        (line.empty() || (line[0] != ' ' && line[0] != '\t')))
      continue;
    out.append(line);
    if (inserted)
      continue;
    const bool is_begin = line_no == 1;
    const bool next_is_version = lower(original.substr(0, 8)) == "version:";
    if (is_begin && next_is_version)
      continue;
    std::string_view brk =
        line.size() >= 2 && line[line.size() - 2] == '\r' ? "\r\n" : "\n";
    if (line.empty() || line.back() != '\n')
      out.append(brk);
    out.append("UID:").append(uid).append(brk);
    inserted = true;
  }
  return out;
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
                        std::optional<core::vcard_version> version,
                        const std::string& uid) {
  // Most cards go out as their bytes and name their UID on a line of their
  // own: no parse for those (a pending fetch may hold a whole book).
  if (!version && has_uid_line(original) && core::is_valid_utf8(original))
    return original;
  auto blocks = core::parse_vcards(original);
  if (blocks.size() != 1 || !blocks.front().ok())
    return original;
  auto& card = blocks.front().card;
  const bool needs_uid = !uid.empty() && core::explicit_uid(card).empty();
  if (!version && !core::is_valid_utf8(original)) {
    // Original bytes in another charset (a feature phone's GBK) would be
    // mangled in a JSON string or a UTF-8 body: send the same card as 3.0,
    // which is UTF-8 and means the same.
    version = core::vcard_version::v3_0;
  }
  if (!version)
    return needs_uid ? with_uid_line(original, uid) : original;
  if (needs_uid) {
    card.properties.erase(std::remove_if(card.properties.begin(), card.properties.end(),
                                         [](const auto& p) { return p.name == "UID"; }),
                          card.properties.end());
    core::vcard_property property;
    property.name = "UID";
    property.values = {uid};
    card.properties.insert(card.properties.begin(), std::move(property));
  }
  return core::serialize(card, *version);
}

} // namespace simsync::net
