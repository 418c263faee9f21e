#include "store/history_entry.hpp"

#include "store/netstrings.hpp"

namespace simsync::store {

std::optional<history_entry> read_history_entry(reply_view fields) {
  history_entry entry;
  for (std::size_t f = 0; f + 1 < fields.size(); f += 2) {
    auto name = fields[f].str();
    auto value = fields[f + 1].str();
    if (name == "k") {
      entry.kind = value;
    } else if (name == "o") {
      entry.origin = value;
    } else if (name == "u") {
      entry.uids.push_back(value);
    } else if (name == "us") {
      auto listed = split_netstrings(value);
      if (!listed)
        return std::nullopt;
      entry.uids.insert(entry.uids.end(), listed->begin(), listed->end());
    }
  }
  return entry;
}

} // namespace simsync::store
