#include "store/redis_presence.hpp"

#include "logging/log.hpp"

namespace simsync::store {

redis_presence::redis_presence(std::string owner, std::string address)
    : owner_(std::move(owner)), address_(std::move(address)) {}

void redis_presence::lost(std::string_view why) {
  if (lost_)
    return;
  lost_ = true;
  logging::warn("redis_lost", {{"owner", owner_}, {"redis", address_}, {"reason", why}});
}

void redis_presence::reached() {
  if (!lost_)
    return;
  lost_ = false;
  logging::info("redis_back", {{"owner", owner_}, {"redis", address_}});
}

} // namespace simsync::store
