#pragma once

#include "actors/actors.hpp"
#include "actors/replication_backlog.hpp"
#include "metrics/latency_histogram.hpp"
#include "store/reconnecting_store.hpp"

#include <caf/stateful_actor.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace simsync {

struct account_shard_state {
  static inline const char* name = "account_shard";

  int shard = 0;
  /// Every request reconnects it first if Redis was lost, and it logs the
  /// loss and the return (set when the shard starts).
  std::optional<store::reconnecting_store> store;
  std::uint64_t processed = 0;
  std::string last_error;
  /// Time per request, when the node measures its actors.
  std::optional<metrics::latency_histogram> latency;
  /// Shared uploads are refused while this node's replication is further
  /// behind than max_lag: the node that owns the account's outbox decides.
  std::shared_ptr<const replication_backlog> backlog;
  std::chrono::milliseconds max_lag{0};
  /// The carrier's peers: an account's removal drops what their operator
  /// streams keep about it (account_store::remove_line).
  std::vector<std::string> peers;
};

/// Spawn detached: its handlers block on Redis (hiredis' sync API), which must
/// never happen on a cooperatively scheduled thread.
account_shard_actor::behavior_type
account_shard(account_shard_actor::stateful_pointer<account_shard_state> self,
              store::redis_endpoint redis_at, std::string carrier, int shard,
              std::shared_ptr<const core::shared_keyring> keys,
              std::shared_ptr<const replication_backlog> backlog,
              std::chrono::milliseconds max_lag, store::history_policy history,
              std::vector<std::string> peers, bool measured);

} // namespace simsync
