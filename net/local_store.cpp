#include "net/local_store.hpp"

#include <algorithm>

namespace simsync::net {

local_store::local_store(asio::io_context& loop, settings s)
    : s_(std::move(s)), redis_(loop, s_.redis, s_.limit) {
  redis_.report_as("gateway/local_store");
}

bool local_store::owns(int shard) const {
  return std::find(s_.shards.begin(), s_.shards.end(), shard) != s_.shards.end();
}

} // namespace simsync::net
