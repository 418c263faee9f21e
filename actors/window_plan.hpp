#pragma once

// How a peer link plans a window: pure, without Redis or CAF actors, so that
// what goes where is unit-tested (tests/unit/actors/window_plan_test.cpp).

#include "store/outbox.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace simsync {

struct window_limits {
  /// Entries read from the outbox and sent before waiting for their acks.
  /// They travel as few requests (one per peer node unless large) and one
  /// script call per request and peer shard, so a larger window costs no more
  /// messages: 256 (from 64) drains a backlog of small interactive edits in a
  /// quarter of the round trips.
  std::size_t window = 256;
  /// A window also ends after this many bytes of batches (at least one entry
  /// goes): what the link holds in flight while bootstrap batches of large
  /// books wait in the outbox. What was read beyond it starts the next window.
  std::size_t window_bytes = 16 << 20;
  /// One request carries at most this many bytes of batches (at least one
  /// entry): the peer applies one while the next is on the wire, and its
  /// script, during which that Redis serves nobody else, stays short. The
  /// store cuts a large batch into entries of about 512 KiB of sealed records
  /// (ENTRY_BYTES in store/lua/lib.lua), and the link plans its window on the
  /// entries as read, still sealed, so a large book travels as one entry per
  /// request (opened, a little less; expanded to 600-700 KiB for a node that
  /// takes cards only as they came). Raising either alone still works, with
  /// longer scripts at the peer.
  std::size_t request_bytes = 512 << 10;
};

struct window_plan {
  /// Per peer node (index = node), its requests in the order to send them,
  /// each with its entries in stream order.
  std::vector<std::vector<std::vector<store::outbox_entry>>> requests_by_node;
  /// What was given beyond the window's byte limit, in stream order: the next
  /// window starts with it.
  std::vector<store::outbox_entry> unsent;
  /// Batch entries of the window left with no card (store::read_outbox: the
  /// account was removed after they were written): in no request, trimmed
  /// with the window.
  std::size_t nothing_to_send = 0;
  /// The stream ids of the window's first and last entries (empty for an
  /// empty window): the outbox is trimmed through the last once every request
  /// is acknowledged.
  std::string first_id;
  std::string last_id;
  /// Bytes of the window's batches, as read (still sealed).
  std::size_t bytes = 0;
};

/// Plans one window from `entries` (in stream order): the first entries up to
/// window_bytes of batches (at least one), split per peer node (`node_of` an
/// idcode, below `node_count`; a batch entry without cards in none) in stream order (an
/// account's entries all go to the node owning its shard, so their order survives), in
/// requests of up to request_bytes (at least one entry each). Requests to one node arrive
/// and are applied in the order they were sent.
window_plan
plan_window(std::vector<store::outbox_entry> entries, std::size_t node_count,
            const std::function<std::size_t(const std::string& idcode)>& node_of,
            const window_limits& limits = {});

/// Redis has no byte limit for a read, so the link sizes its next read from
/// the average entry of the last one: window_bytes worth, at least 1 and at
/// most `window` entries. An empty read tells nothing of sizes (the link keeps
/// its count); for one this returns 1.
std::size_t next_read_count(const std::vector<store::outbox_entry>& read,
                            const window_limits& limits = {});

} // namespace simsync
