#include "store/set_aside.hpp"

#include "store/account_calls.hpp"
#include "store/netstrings.hpp"
#include "store/replies.hpp"
#include "store/scripts.hpp"
#include "store/sealed_records.hpp"

#include <array>

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
  std::vector<std::string_view> args{peer, entry.id, why, at, entry.idcode};
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

} // namespace simsync::store
