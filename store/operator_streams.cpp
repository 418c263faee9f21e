#include "store/operator_streams.hpp"

#include "core/error.hpp"
#include "store/keys.hpp"
#include "store/outbox.hpp"

namespace simsync::store {

namespace {

/// Entries read at once while looking for an account's.
constexpr std::size_t sweep_page = 200;

/// Drops the entries of stream `key` whose field `field` is `idcode`.
caf::expected<std::size_t> drop_entries_of(redis_client& redis, const std::string& key,
                                           std::string_view field,
                                           const std::string& idcode) {
  std::size_t dropped = 0;
  auto count = std::to_string(sweep_page);
  for (std::string from = "-";;) {
    auto r = redis.call({"XRANGE", key, from, "+", "COUNT", count});
    if (!r)
      return std::move(r.error());
    auto v = r->view();
    if (!v.is_array())
      return caf::make_error(ec::store_corrupt, "XRANGE answered an unexpected reply");
    command drop{"XDEL", key};
    const auto head = drop.size();
    for (std::size_t i = 0; i < v.size(); ++i)
      if (stream_field(v[i][1], field) == idcode)
        drop.emplace_back(v[i][0].str());
    if (drop.size() > head) {
      auto d = redis.call(drop);
      if (!d)
        return std::move(d.error());
      dropped += static_cast<std::size_t>(d->view().integer());
    }
    if (v.size() < sweep_page)
      return dropped;
    from = "(" + std::string(v[v.size() - 1][0].str());
  }
}

} // namespace

caf::expected<bool> drop_kept_entry(redis_client& redis, const std::string& key,
                                    const std::string& id) {
  auto r = redis.call({"XDEL", key, id});
  if (!r)
    return std::move(r.error());
  if (r->view().is_error())
    return false; // not a stream id at all
  return r->view().integer() > 0;
}

caf::expected<std::size_t> drop_account_entries(redis_client& redis,
                                                const std::vector<std::string>& peers,
                                                const std::string& idcode) {
  std::size_t dropped = 0;
  for (const auto& peer : peers) {
    // A dead letter names its account "idcode"; an entry set aside keeps the
    // outbox's own fields, where it is "id".
    for (auto [key, field] : {std::pair{keys::dead_letters(peer), "idcode"},
                              std::pair{keys::set_aside(peer), "id"}}) {
      auto n = drop_entries_of(redis, key, field, idcode);
      if (!n)
        return n;
      dropped += *n;
    }
  }
  return dropped;
}

} // namespace simsync::store
