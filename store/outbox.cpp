#include "store/outbox.hpp"

#include "store/keys.hpp"
#include "store/netstrings.hpp"
#include "store/sealed_records.hpp"

#include <charconv>

namespace simsync::store {

namespace {

/// The stream id right after `id` ("ms-seq" -> "ms-(seq+1)"), for XTRIM MINID,
/// which keeps ids at or above its argument.
caf::expected<std::string> next_id(const std::string& id) {
  auto dash = id.find('-');
  unsigned long long ms = 0;
  unsigned long long seq = 0;
  const char* end = id.data() + id.size();
  if (dash == std::string::npos ||
      std::from_chars(id.data(), id.data() + dash, ms).ptr != id.data() + dash ||
      std::from_chars(id.data() + dash + 1, end, seq).ptr != end)
    return caf::make_error(ec::invalid_request, "not a stream id: " + id);
  return std::to_string(ms) + "-" + std::to_string(seq + 1);
}

/// The entries of one stream in an XREAD reply, their cards still sealed.
caf::expected<std::vector<outbox_entry>> parse_entries(reply_view v,
                                                       const std::string& peer) {
  std::vector<outbox_entry> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto entry = v[i];
    if (entry.size() != 2)
      return caf::make_error(ec::store_corrupt, "malformed outbox entry for " + peer);
    outbox_entry e{std::string(entry[0].str()),
                   stream_field(entry[1], "id"),
                   kind_named(stream_field(entry[1], "kind")),
                   {}};
    auto sealed = outbox_batch(entry[1]);
    if (!sealed)
      return caf::make_error(ec::store_corrupt, "outbox entry " + e.id + " for " + peer +
                                                    " has a count of cards that does "
                                                    "not match its fields");
    e.batch = std::move(*sealed);
    out.push_back(std::move(e));
  }
  return out;
}

} // namespace

std::string stream_field(reply_view fields, std::string_view name) {
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2)
    if (fields[i].str() == name)
      return std::string(fields[i + 1].str());
  return {};
}

std::optional<std::string> outbox_batch(reply_view fields) {
  // id, <idcode>, kind, <kind>, cards, <count>, then the pairs.
  constexpr std::size_t pairs_at = 6;
  if (fields.size() < pairs_at || fields[4].str() != "cards")
    return stream_field(fields, "batch");
  std::uint64_t count = 0;
  auto digits = fields[5].str();
  auto [end, failed] =
      std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (failed != std::errc{} || end != digits.data() + digits.size() ||
      count != (fields.size() - pairs_at) / 2 || (fields.size() - pairs_at) % 2 != 0)
    return std::nullopt;
  std::size_t bytes = 0;
  for (std::size_t i = pairs_at; i < fields.size(); ++i)
    bytes += fields[i].str().size() + 8; // and its "<len>:"
  std::string out;
  out.reserve(bytes);
  for (std::size_t i = pairs_at; i < fields.size(); ++i)
    append_netstring(out, fields[i].str());
  return out;
}

outbox_kind kind_named(std::string_view name) {
  for (auto kind : {outbox_kind::ask, outbox_kind::hold, outbox_kind::retire})
    if (name == kind_name(kind))
      return kind;
  if (name == "announce")
    return outbox_kind::ask;
  return outbox_kind::batch;
}

bool is_lookup(outbox_kind kind) {
  return kind == outbox_kind::ask || kind == outbox_kind::hold;
}

std::string_view kind_name(outbox_kind kind) {
  switch (kind) {
  case outbox_kind::ask:
    return "ask";
  case outbox_kind::hold:
    return "hold";
  case outbox_kind::retire:
    return "retire";
  case outbox_kind::batch:
    return "batch";
  }
  return "batch";
}

caf::expected<std::vector<outbox_entry>>
read_outbox(redis_client& redis, const std::string& peer, const std::string& after,
            std::size_t count, std::chrono::milliseconds wait) {
  auto n = std::to_string(count);
  auto ms = std::to_string(wait.count());
  auto key = keys::outbox(peer);
  command cmd{"XREAD", "COUNT", n};
  if (wait.count() > 0) // BLOCK 0 would wait for ever
    cmd.insert(cmd.end(), {"BLOCK", ms});
  cmd.insert(cmd.end(), {"STREAMS", key, after});
  auto r = redis.call(cmd);
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (v.is_error())
    return caf::make_error(ec::store_unavailable, "XREAD: " + std::string(v.str()));
  if (v.is_nil() || v.size() == 0) // nothing there, or nothing came in time
    return std::vector<outbox_entry>{};
  return parse_entries(v[0][1], peer);
}

caf::error unseal_entry(const core::keyring& keys, outbox_entry& entry,
                        const std::string& peer) {
  auto batch = unseal_batch(keys, entry.batch, entry.idcode);
  if (!batch)
    return caf::make_error(ec::store_corrupt,
                           "outbox entry " + entry.id + " for " + peer +
                               " does not open: its cards were sealed with a key "
                               "this node's keyring lacks, or were altered");
  entry.batch = std::move(*batch);
  return {};
}

caf::expected<std::size_t> trim_outbox(redis_client& redis, const std::string& peer,
                                       const std::string& through) {
  auto min_id = next_id(through);
  if (!min_id)
    return std::move(min_id.error());
  auto r = redis.call({"XTRIM", keys::outbox(peer), "MINID", *min_id});
  if (!r)
    return std::move(r.error());
  if (r->view().is_error())
    return caf::make_error(ec::store_unavailable,
                           "XTRIM: " + std::string(r->view().str()));
  return static_cast<std::size_t>(r->view().integer());
}

caf::expected<std::size_t> outbox_depth(redis_client& redis, const std::string& peer) {
  auto r = redis.call({"XLEN", keys::outbox(peer)});
  if (!r)
    return std::move(r.error());
  return static_cast<std::size_t>(r->view().integer());
}

caf::expected<std::uint64_t>
oldest_outbox_ms(redis_client& redis, const std::string& peer, const std::string& after) {
  auto r = redis.call({"XRANGE", keys::outbox(peer), "(" + after, "+", "COUNT", "1"});
  if (!r)
    return std::move(r.error());
  auto entries = r->view();
  if (!entries.is_array() || entries.size() == 0)
    return std::uint64_t{0};
  return stream_id_ms(entries[0][0].str());
}

std::uint64_t stream_id_ms(std::string_view id) {
  std::uint64_t ms = 0; // "<ms>-<seq>"
  std::from_chars(id.data(), id.data() + id.size(), ms);
  return ms;
}

} // namespace simsync::store
