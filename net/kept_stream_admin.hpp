#pragma once

// What the admin routes of the streams a node keeps for its operator (a
// peer's dead letters, the outbox entries set aside: store/operator_streams.hpp)
// share: how many to list at once, and dropping one entry.

#include "net/admin_auth.hpp"
#include "net/exchange.hpp"

#include <cstdint>
#include <optional>
#include <utility>

namespace simsync::net {

/// The request's ?limit=N, 1 to store::kept_for_operator (the most such a
/// stream keeps), 100 when absent; nullopt when malformed or out of range,
/// the exchange then answered with 400.
std::optional<std::uint64_t> list_limit(const exchange_ptr& ex);

/// GET .../{peer}?limit=N: behind the admin credential, asks the node's shard
/// that keeps these streams with `list` (an atom taking peer and limit,
/// answering a std::vector<Entry>, oldest first); 200 {"peer": …, `name`:
/// [json_of(entry)…]}.
template <class Entry, class ListAtom, class JsonOf>
void handle_list_kept(const exchange_ptr& ex, ListAtom list, const char* name,
                      JsonOf json_of) {
  if (!admin_authorized(ex))
    return;
  auto limit = list_limit(ex);
  if (!limit)
    return;
  ex->ask_at(
      ex->ctx().operator_stream_shard,
      [ex, name, json_of](const std::vector<Entry>& kept) {
        auto listed = nlohmann::json::array();
        for (const auto& e : kept)
          listed.push_back(json_of(e));
        ex->reply_json(200, {{"peer", ex->param(0)}, {name, std::move(listed)}});
      },
      list, ex->param(0), *limit);
}

/// DELETE .../{peer}/{id}: behind the admin credential, asks the node's shard
/// that keeps these streams with `drop` (an atom taking peer and id, answering
/// whether it dropped one); 200 {"dropped": true}, or `missing` (a 404).
template <class DropAtom>
void handle_drop_kept(const exchange_ptr& ex, DropAtom drop, problem missing) {
  if (!admin_authorized(ex))
    return;
  ex->ask_at(
      ex->ctx().operator_stream_shard,
      [ex, missing = std::move(missing)](bool dropped) {
        if (!dropped)
          return ex->fail(missing);
        ex->reply_json(200, {{"dropped", true}});
      },
      drop, ex->param(0), ex->param(1));
}

} // namespace simsync::net
