#include "store/reconnecting_store.hpp"

namespace simsync::store {

reconnecting_store::reconnecting_store(std::string owner, redis_endpoint at,
                                       std::string carrier,
                                       std::shared_ptr<const core::shared_keyring> keys,
                                       history_policy history)
    : at_(std::move(at)), carrier_(std::move(carrier)), keys_(std::move(keys)),
      history_(history), presence_(std::move(owner), at_.to_string()) {}

caf::expected<account_store*> reconnecting_store::get() {
  if (healthy())
    return store_.get();
  store_.reset();
  redis_.reset();
  auto client = redis_client::connect(at_);
  if (!client)
    return std::move(client.error());
  redis_.emplace(std::move(*client));
  store_ = std::make_unique<account_store>(*redis_, carrier_, keys_, history_);
  return store_.get();
}

} // namespace simsync::store
