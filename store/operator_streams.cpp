#include "store/operator_streams.hpp"

namespace simsync::store {

caf::expected<bool> drop_kept_entry(redis_client& redis, const std::string& key,
                                    const std::string& id) {
  auto r = redis.call({"XDEL", key, id});
  if (!r)
    return std::move(r.error());
  if (r->view().is_error())
    return false; // not a stream id at all
  return r->view().integer() > 0;
}

} // namespace simsync::store
