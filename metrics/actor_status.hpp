#pragma once

// What an actor of a node reports about itself, cumulative since it started:
// the introspector turns two of these a second apart into rates and recent
// percentiles. Plain data, so the metrics code needs no CAF (the actors'
// protocol header gives it its `inspect`).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simsync::metrics {

struct actor_status {
  std::string name; ///< e.g. "account_shard/3", "peer_link/carrier-b"
  std::string kind; ///< account_shard, router, federation, user_directory or peer_link
  int32_t shard = -1;
  std::uint64_t mailbox = 0;   ///< messages waiting
  std::uint64_t processed = 0; ///< messages handled since the actor started
  std::uint32_t restarts = 0;  ///< filled in by the node
  std::string last_error;
  /// Time to handle one message (for a peer link: from sending an entry to
  /// its acknowledgement), as latency_histogram::counts() and sum_us().
  std::vector<std::uint64_t> latency_counts;
  std::uint64_t latency_sum_us = 0;
  // Peer links only.
  std::string peer;
  std::string link_state;   ///< up, down or connecting
  std::uint64_t outbox = 0; ///< entries waiting for the peer
  /// Age of the oldest entry the peer has not acknowledged (replication lag).
  std::uint64_t lag_ms = 0;
  std::uint64_t batches_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t acknowledged = 0;
  /// The card form each node of the peer is sent, by node id: vcard-deflate-1
  /// (compressed, as stored), vcard (each card expanded: the node does not
  /// take compressed ones) or unknown (asked, not answered yet: expanded too).
  std::map<std::string, std::string> card_forms;
  // The federation endpoint only: batches refused whole, by reason
  // (unknown-origin, wrong-destination, bad-signature, malformed).
  std::map<std::string, std::uint64_t> refused;
  // The user directory only: the directory entries from peers, by outcome
  // (asked, answered, siblings_added, siblings_removed), and the lookups that
  // waited for their peer's pace, by peer.
  std::map<std::string, std::uint64_t> directory;
  std::map<std::string, std::uint64_t> paced;
};

} // namespace simsync::metrics
