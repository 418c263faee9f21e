#pragma once

// One entry of a history stream (`history:{id}`, `phistory:{id}:<line>`) as
// the store's scripts write it (store/lua/lib.lua, note_change and
// write_additions): `k` its kind (added, changed, removed; lost: an edit that
// never was the book's), `o` its origin "carrier|line", and the uids it
// names: `u` one, or `us` an upload's additions as netstrings. (`p`, the
// version replaced, is read by the scripts alone.) What GET .../history
// lists and what the load tool's mailbox watch follows are read here.

#include "store/redis_client.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace simsync::store {

struct history_entry {
  std::string_view kind;
  std::string_view origin; ///< "carrier|line"
  std::vector<std::string_view> uids;
};

/// The entry whose fields (name, value, ...: an XRANGE entry's second
/// element) are `fields`, as views into the reply; nullopt if its `us` is
/// not a list of netstrings.
std::optional<history_entry> read_history_entry(reply_view fields);

} // namespace simsync::store
