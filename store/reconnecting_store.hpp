#pragma once

#include "core/error.hpp"
#include "store/account_store.hpp"
#include "store/redis_client.hpp"
#include "store/redis_presence.hpp"

#include <caf/expected.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace simsync::store {

/// An account_store on a blocking connection of its own, for an actor that
/// has a thread to block (a shard, the federation endpoint): it connects on
/// first use, and again on the next use after the connection broke. It logs
/// when its owner loses Redis and has it back (redis_presence).
class reconnecting_store {
public:
  /// `owner` names the connection's owner in the log (account_shard/3).
  reconnecting_store(std::string owner, redis_endpoint at, std::string carrier,
                     std::shared_ptr<const core::shared_keyring> keys,
                     history_policy history);

  /// Runs `op` on the store, connecting first if there is no connection or
  /// it broke; returns what `op` returns, or why Redis could not be reached.
  template <class Op> auto run(Op&& op) -> decltype(op(std::declval<account_store&>())) {
    auto s = get();
    if (!s) {
      presence_.lost(describe(s.error()));
      return std::move(s.error());
    }
    auto r = op(**s);
    if (healthy())
      presence_.reached();
    else
      presence_.lost(r ? std::string{"the connection broke"} : describe(r.error()));
    return r;
  }

  const core::shared_keyring& keys() const { return *keys_; }

private:
  caf::expected<account_store*> get();
  bool healthy() const { return redis_ && redis_->healthy(); }

  redis_endpoint at_;
  std::string carrier_;
  std::shared_ptr<const core::shared_keyring> keys_;
  history_policy history_;
  redis_presence presence_;
  std::optional<redis_client> redis_;
  std::unique_ptr<account_store> store_;
};

} // namespace simsync::store
