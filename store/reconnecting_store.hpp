#pragma once

#include "store/account_store.hpp"
#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <memory>
#include <optional>
#include <string>

namespace simsync::store {

/// An account_store on a blocking connection of its own, for an actor that
/// has a thread to block (a shard, the federation endpoint): it connects on
/// first use, and again on the next use after the connection broke.
class reconnecting_store {
public:
  reconnecting_store(redis_endpoint at, std::string carrier,
                     std::shared_ptr<const core::shared_keyring> keys,
                     history_policy history);

  /// The store, connecting first if there is no connection or it broke.
  caf::expected<account_store*> get();
  /// Whether the connection is up (false before the first use).
  bool healthy() const { return redis_ && redis_->healthy(); }
  const redis_endpoint& endpoint() const { return at_; }
  const core::shared_keyring& keys() const { return *keys_; }

private:
  redis_endpoint at_;
  std::string carrier_;
  std::shared_ptr<const core::shared_keyring> keys_;
  history_policy history_;
  std::optional<redis_client> redis_;
  std::unique_ptr<account_store> store_;
};

} // namespace simsync::store
