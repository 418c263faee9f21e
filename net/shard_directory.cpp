#include "net/shard_directory.hpp"

namespace simsync::net {

account_shard_actor shard_directory::find(int index) const {
  std::lock_guard<std::mutex> guard{mtx_};
  if (index < 0 || static_cast<std::size_t>(index) >= handles_.size())
    return {};
  return handles_[static_cast<std::size_t>(index)];
}

void shard_directory::update(const node_shards& known) {
  std::lock_guard<std::mutex> guard{mtx_};
  for (std::size_t i = 0; i < known.indices.size() && i < known.handles.size(); ++i) {
    auto index = static_cast<std::size_t>(known.indices[i]);
    if (index < handles_.size())
      handles_[index] = known.handles[i];
  }
}

} // namespace simsync::net
