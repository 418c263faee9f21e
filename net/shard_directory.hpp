#pragma once

#include "actors/actors.hpp"

#include <mutex>
#include <vector>

namespace simsync::net {

/// The carrier's shard handles as the gateway last learned them from its
/// node's federation endpoint. Shared by every request actor, hence the lock;
/// it is held only to copy one handle.
class shard_directory {
public:
  explicit shard_directory(int shards) : handles_(static_cast<std::size_t>(shards)) {}

  /// The handle of shard `index`, or an invalid handle if it is not known (yet).
  account_shard_actor find(int index) const;

  /// Takes what the federation endpoint knows now (after a start, a restart
  /// of a shard, or a sibling node joining).
  void update(const node_shards& known);

private:
  mutable std::mutex mtx_;
  std::vector<account_shard_actor> handles_;
};

} // namespace simsync::net
