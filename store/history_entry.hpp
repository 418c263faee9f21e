#pragma once

// One entry of a history stream (`history:{id}`, `phistory:{id}:<line>`) as
// the store's scripts write it (store/lua/lib.lua, note_change and
// write_additions), its fields named in store/contract/history.list
// (store/history_fields.hpp): its kind (added, changed, removed; lost: an
// edit that never was the book's), its origin, and the uids it names (one,
// or an upload's additions as netstrings). (The version replaced is read by
// the scripts and the reseal alone.) What GET .../history lists and what the
// load tool's mailbox watch follows are read here.

#include "store/redis_client.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace simsync::store {

struct history_entry {
  std::string_view kind;
  /// Where the change was written: the parts (core::split_origin) of the
  /// origin the entry notes as the record's head writes it
  /// (core::record_origin).
  std::string_view carrier;
  std::string_view line;
  std::vector<std::string_view> uids;
};

/// The entry whose fields (name, value, ...: an XRANGE entry's second
/// element) are `fields`, as views into the reply; nullopt if its uids
/// (history_fields::uids) are not a list of netstrings.
std::optional<history_entry> read_history_entry(reply_view fields);

} // namespace simsync::store
