#pragma once

#include "actors/actors.hpp"
#include "actors/link_machine.hpp"
#include "actors/replication_backlog.hpp"
#include "config/node_config.hpp"
#include "core/signature.hpp"
#include "metrics/latency_histogram.hpp"
#include "store/outbox.hpp"
#include "store/redis_client.hpp"

#include <caf/stateful_actor.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace simsync {

/// What a peer link keeps of a window it sent, until the window is trimmed.
struct sent_window {
  std::uint64_t window = 0;   ///< the machine's number for it
  std::string last_id;        ///< of its last entry: trimmed through it
  std::size_t entries = 0;    ///< all of them, those with nothing to send too
  std::uint64_t first_ms = 0; ///< when its oldest entry was written
  std::chrono::steady_clock::time_point sent_at;
};

struct peer_link_state {
  static inline const char* name = "peer_link";

  std::string carrier; ///< this carrier: the origin of what the link sends
  config::peer_entry peer;
  std::optional<core::signature_key> signing_key; ///< this carrier's: signs each batch
  store::redis_endpoint redis_at;
  /// Unseal the cards of the outbox's entries: they leave clear, inside TLS.
  std::shared_ptr<const core::shared_keyring> keys;
  std::optional<store::redis_client> redis;
  /// One handle per peer node (same order as peer.nodes); invalid while down.
  std::vector<federation_delivery_actor> nodes;
  /// What each node said of compressed cards (atom::card_forms), asked when
  /// the link connects to it: true, it is sent them as they are stored;
  /// false (it does not take them), or not known yet, each card expanded.
  std::vector<std::optional<bool>> takes_compressed;
  std::vector<bool> asking_card_forms; ///< a question to the node is in flight

  /// Decides every step (actors/link_machine.hpp); the fields below are what
  /// the steps work on.
  link_machine::state machine;
  /// The windows in flight, oldest first, as the machine's flights.
  std::deque<sent_window> in_flight;
  /// The last entry the peer acknowledged: the next read starts after it
  /// ("0-0", the oldest entry, after a failure).
  std::string acked_through = "0-0";
  /// Acknowledged entries still in the outbox (a trim is due when there are
  /// any); the status counts only what the peer has not acknowledged.
  std::size_t acked_untrimmed = 0;
  std::chrono::steady_clock::time_point last_trim;
  /// Entries read from the outbox and not sent yet, in stream order: the
  /// window about to be planned, then what it left beyond its byte limit, so
  /// that the next window starts with them instead of reading them again.
  /// Dropped on any failure, so a retry starts at the outbox's oldest entry.
  std::vector<store::outbox_entry> unsent;
  /// Entries the next read from the outbox asks for (see first_read).
  std::size_t read_count = 1;
  /// Where the link says how far behind it is (slot = the peer's position).
  std::shared_ptr<replication_backlog> backlog;
  std::size_t backlog_slot = 0;

  std::uint64_t batches_sent = 0; ///< outbox entries sent (resends included)
  std::uint64_t bytes_sent = 0;   ///< of their batches
  std::uint64_t acknowledged = 0; ///< outbox entries the peer persisted
  /// From sending a request to a peer node's acknowledgement, when measured.
  std::optional<metrics::latency_histogram> round_trip;
  /// How long a window waits for its acknowledgements before the link gives
  /// it up and sends it again (watch_acks).
  std::chrono::seconds ack_timeout{60};
  /// A look at the window in flight's wait (watch_acks) is scheduled.
  bool ack_watch_armed = false;
};

/// Spawn detached, in the node's links actor system (node_systems.hpp): it blocks on
/// Redis and on connecting to the peer's nodes (TLS), and its supervisor lives in the
/// other system. Each request is one batch signed with this carrier's key. Delivery is at
/// least once and in order per account (all of an account's entries go to the same peer
/// node, in requests sent in order); the peer's apply is idempotent, so a resent window
/// does no harm.
peer_link_actor::behavior_type
peer_link(peer_link_actor::stateful_pointer<peer_link_state> self, std::string carrier,
          config::peer_entry peer, core::signature_key signing_key,
          store::redis_endpoint redis_at,
          std::shared_ptr<const core::shared_keyring> keys,
          std::shared_ptr<replication_backlog> backlog, std::size_t backlog_slot,
          std::chrono::seconds ack_timeout, bool measured);

} // namespace simsync
