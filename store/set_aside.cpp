#include "store/set_aside.hpp"

#include "store/account_calls.hpp"
#include "store/keys.hpp"
#include "store/netstrings.hpp"
#include "store/operator_streams.hpp"
#include "store/replies.hpp"
#include "store/scripts.hpp"
#include "store/sealed_records.hpp"

#include <array>
#include <cstdlib>

namespace simsync::store {

std::optional<std::vector<bool>> altered_records(const core::keyring& keys,
                                                 const outbox_entry& entry) {
  auto items = split_netstrings(entry.batch);
  if (!items || items->size() % 2 != 0)
    return std::nullopt;
  std::vector<bool> altered;
  bool any = false;
  for (std::size_t i = 1; i < items->size(); i += 2) {
    const auto& record = (*items)[i];
    bool opens = unseal_record(keys, record, entry.idcode).has_value();
    if (!opens) {
      // Only a key the ring lacks can be mended (by the key file); any
      // other record that does not open is damaged for good.
      if (auto key = sealing_key(record); key && !keys.holds(*key))
        return std::nullopt;
      any = true;
    }
    altered.push_back(!opens);
  }
  if (!any)
    return std::nullopt;
  return altered;
}

caf::expected<set_aside_result>
set_aside_entry(redis_client& redis, const std::string& peer, const outbox_entry& entry,
                const std::vector<bool>& altered, const std::string& why,
                std::uint64_t now_ms) {
  auto items = split_netstrings(entry.batch);
  if (!items || items->size() != 2 * altered.size())
    return corrupt("outbox entry " + entry.id + " does not match its altered records");
  auto at = std::to_string(now_ms);
  auto kept = std::to_string(kept_for_operator);
  std::vector<std::string_view> args{peer, entry.id, why, at, entry.idcode, kept};
  for (std::size_t i = 0; i < altered.size(); ++i) {
    args.push_back((*items)[2 * i]);
    args.push_back((*items)[2 * i + 1]);
    args.push_back(altered[i] ? "1" : "0");
  }
  auto r = run_script(redis, script::set_aside, args);
  if (!r)
    return std::move(r.error());
  std::array<std::uint64_t, replies::set_aside::size> counts{};
  if (!read_counts(r->view(), counts.size(), counts.data()))
    return corrupt("set_aside answered an unexpected reply");
  auto reply = replies::set_aside::from(counts.data());
  return set_aside_result{reply.found != 0, reply.resent, reply.broken};
}

namespace {

/// How many cards a set-aside entry's fields hold or name: the count of
/// its "uids" or "cards" field, or the pairs of an older entry's "batch".
std::uint64_t cards_in(reply_view fields) {
  for (const char* listed : {"uids", "cards"}) {
    auto count = stream_field(fields, listed);
    if (!count.empty())
      return listed_count(count).value_or(0);
  }
  // Kept while its items, views into it, are.
  auto batch = stream_field(fields, "batch");
  auto items = split_netstrings(batch);
  return items ? items->size() / 2 : 0;
}

} // namespace

caf::expected<std::vector<aside_entry>>
read_set_aside(redis_client& redis, const std::string& peer, std::size_t limit) {
  auto r = redis.call(
      {"XRANGE", keys::set_aside(peer), "-", "+", "COUNT", std::to_string(limit)});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array())
    return corrupt("XRANGE of the set-aside stream answered an unexpected reply");
  std::vector<aside_entry> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto fields = v[i][1];
    aside_entry e;
    e.id = std::string(v[i][0].str());
    e.why = stream_field(fields, "why");
    e.at_ms = std::strtoull(stream_field(fields, "at").c_str(), nullptr, 10);
    e.idcode = stream_field(fields, "id");
    e.kind = stream_field(fields, "kind");
    e.cards = cards_in(fields);
    out.push_back(std::move(e));
  }
  return out;
}

caf::expected<bool> drop_set_aside(redis_client& redis, const std::string& peer,
                                   const std::string& id) {
  return drop_kept_entry(redis, keys::set_aside(peer), id);
}

} // namespace simsync::store
