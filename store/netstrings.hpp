#pragma once

// Lists of byte strings as "<len>:<bytes>" items, the form the store's Lua
// scripts write (lib.lua's netstrings()): an outbox entry's batch, a history
// entry's uids.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::store {

/// The items of `text`, as views into it (valid while `text` is); nullopt
/// unless the whole text is such items, each length written as
/// append_netstring writes it (no leading zero).
std::optional<std::vector<std::string_view>> split_netstrings(std::string_view text);

/// Appends `item` to `out` as one netstring.
void append_netstring(std::string& out, std::string_view item);

} // namespace simsync::store
