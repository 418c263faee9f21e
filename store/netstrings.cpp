#include "store/netstrings.hpp"

namespace simsync::store {

std::optional<std::vector<std::string_view>> split_netstrings(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    auto colon = text.find(':');
    if (colon == 0 || colon == std::string_view::npos || colon > 9)
      return std::nullopt;
    // One spelling per length, as append_netstring writes it: "0", not "00".
    if (colon > 1 && text[0] == '0')
      return std::nullopt;
    std::size_t len = 0;
    for (char c : text.substr(0, colon)) {
      if (c < '0' || c > '9')
        return std::nullopt;
      len = len * 10 + static_cast<std::size_t>(c - '0');
    }
    if (len > text.size() - colon - 1)
      return std::nullopt;
    out.push_back(text.substr(colon + 1, len));
    text.remove_prefix(colon + 1 + len);
  }
  return out;
}

void append_netstring(std::string& out, std::string_view item) {
  out += std::to_string(item.size());
  out += ':';
  out.append(item);
}

} // namespace simsync::store
