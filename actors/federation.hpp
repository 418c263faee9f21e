#pragma once

#include "actors/actors.hpp"
#include "actors/incoming_entries.hpp"
#include "core/signature.hpp"
#include "metrics/latency_histogram.hpp"
#include "store/reconnecting_store.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace simsync {

/// What the endpoint needs to apply a delivery itself (see federation()).
struct federation_store {
  store::redis_endpoint redis_at;
  std::shared_ptr<const core::shared_keyring> keys;
  store::history_policy history;
  int total_shards = 1;
  std::vector<int> owned; ///< this node's shards
  entry_limits limits;
};

struct federation_state {
  static inline const char* name = "federation";

  std::string carrier; ///< this carrier: the only destination it accepts
  /// Each peer carrier's public key: who may send, and how to tell it is them.
  std::map<std::string, core::signature_key> peers;
  router_actor router;
  federation_applier_actor applier;
  /// Deliveries handed to the applier and not acknowledged yet.
  std::size_t handed_over = 0;
  /// The deliveries it applies itself; connects on first use.
  std::optional<store::reconnecting_store> store;
  std::vector<bool> owns; ///< by shard index: whether this node owns it
  entry_limits limits;
  std::uint64_t processed = 0;                  ///< entries of accepted batches
  std::map<std::string, std::uint64_t> refused; ///< batches, by reason
  /// From a batch's arrival to its acknowledgement, when measured.
  std::optional<metrics::latency_histogram> latency;
};

/// A node's federation endpoint, published on its federation port in the
/// node's federation actor system (TLS, certificates of the federation's CA
/// on both sides). It is the only actor a peer carrier reaches: it checks who
/// signed each batch, then acknowledges it once its entries are persisted.
/// A delivery of changes alone (no directory entry), every one passing its
/// checks and for an account of this node's shards, it applies itself, in one
/// script call on its own connection: the common case, which then wakes no
/// other thread. While other deliveries wait (a window of a large book, a
/// busy link), `applier` applies them instead, so that checking one overlaps
/// applying another. Any other delivery goes to the router (in the node's
/// cluster actor system). It relays the applier's and the router's
/// acknowledgements. Spawn detached: it blocks on Redis, and talks across the
/// two actor systems (see node.hpp).
federation_actor::behavior_type
federation(federation_actor::stateful_pointer<federation_state> self, std::string carrier,
           std::map<std::string, core::signature_key> peers, router_actor router,
           federation_applier_actor applier, federation_store here, bool measured);

} // namespace simsync
