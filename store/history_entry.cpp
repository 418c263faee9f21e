#include "store/history_entry.hpp"

#include "core/record.hpp"
#include "store/history_fields.hpp"
#include "store/netstrings.hpp"

namespace simsync::store {

std::optional<history_entry> read_history_entry(reply_view fields) {
  namespace field = history_fields;
  history_entry entry;
  for (std::size_t f = 0; f + 1 < fields.size(); f += 2) {
    auto name = fields[f].str();
    auto value = fields[f + 1].str();
    if (name == field::kind) {
      entry.kind = value;
    } else if (name == field::origin) {
      auto parts = core::split_origin(value);
      entry.carrier = parts.carrier;
      entry.line = parts.line;
    } else if (name == field::uid) {
      entry.uids.push_back(value);
    } else if (name == field::uids) {
      auto listed = split_netstrings(value);
      if (!listed)
        return std::nullopt;
      entry.uids.insert(entry.uids.end(), listed->begin(), listed->end());
    }
  }
  return entry;
}

} // namespace simsync::store
