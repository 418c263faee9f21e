#pragma once

#include "actors/actors.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <memory>
#include <mutex>
#include <vector>

namespace simsync::net {

/// The carrier's shard handles as the gateway last learned them from its
/// node's router. Shared by every request actor, hence the lock; it is held
/// only to copy one handle.
///
/// A handle on another node is watched: when that node goes away (killed,
/// stopped, cut off) its handles are forgotten at once, so the next request
/// asks the router again. CAF drops a message to a proxy of a node it has
/// lost without bouncing it, so a kept handle would time out every request
/// for its shards until this node restarted, even after the other node was
/// back and joined.
class shard_directory {
public:
  shard_directory(caf::actor_system& sys, int shards);
  ~shard_directory();
  shard_directory(const shard_directory&) = delete;
  shard_directory& operator=(const shard_directory&) = delete;

  /// The handle of shard `index`, or an invalid handle if it is not known (yet).
  account_shard_actor find(int index) const;

  /// Takes what the router knows now (after a start, a restart of a shard,
  /// or a sibling node joining).
  void update(const node_shards& known);

private:
  struct table {
    std::mutex mtx;
    std::vector<account_shard_actor> handles;
    void forget(const caf::actor_addr& gone);
  };

  std::shared_ptr<table> table_;
  caf::node_id home_;
  caf::actor watcher_;
};

} // namespace simsync::net
