#pragma once

// Where the introspector leaves its latest snapshot for the admin server:
// one writer a second, any number of readers, none of them waiting on an actor.

#include "metrics/node_snapshot.hpp"

#include <memory>
#include <mutex>

namespace simsync::metrics {

class snapshot_board {
public:
  void publish(std::shared_ptr<const node_snapshot> snapshot) {
    std::lock_guard<std::mutex> guard{mutex_};
    latest_ = std::move(snapshot);
  }

  /// The latest snapshot; null until the first one is taken.
  std::shared_ptr<const node_snapshot> latest() const {
    std::lock_guard<std::mutex> guard{mutex_};
    return latest_;
  }

private:
  mutable std::mutex mutex_;
  std::shared_ptr<const node_snapshot> latest_;
};

} // namespace simsync::metrics
