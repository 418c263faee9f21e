#include "store/durability.hpp"

#include "core/error.hpp"

namespace simsync::store {

caf::expected<redis_durability> read_durability(redis_client& redis) {
  auto replies =
      redis.pipeline({{"INFO", "persistence"}, {"CONFIG", "GET", "appendfsync"}});
  if (!replies)
    return std::move(replies.error());
  const auto info = (*replies)[0].view();
  if (info.is_error())
    return caf::make_error(ec::store_unavailable,
                           "INFO persistence: " + std::string{info.str()});
  redis_durability out;
  out.aof_enabled = info.str().find("aof_enabled:1") != std::string_view::npos;
  const auto config = (*replies)[1].view();
  if (!config.is_error() && config.is_array() && config.size() == 2)
    out.appendfsync = std::string{config[1].str()};
  return out;
}

} // namespace simsync::store
