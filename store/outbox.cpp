#include "store/outbox.hpp"

#include "core/record.hpp"
#include "store/account_calls.hpp"
#include "store/keys.hpp"
#include "store/netstrings.hpp"
#include "store/sealed_records.hpp"

#include <charconv>
#include <optional>

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

/// Where an entry's cards are: in its own fields (written before the outbox
/// named them, or for an account about to be removed), or named by uid and
/// held in the shared store.
struct entry_cards {
  std::optional<std::string> inline_batch; ///< netstrings of uid, record pairs
  std::vector<std::string_view> uids;      ///< what the shared store holds
};

/// The field list's cards; nullopt when its count does not match the fields
/// that follow it.
std::optional<entry_cards> cards_of(reply_view fields) {
  // id, <idcode>, kind, <kind>, uids|cards, <count>, then uids or pairs.
  constexpr std::size_t listed_at = 6;
  bool named = fields.size() >= listed_at && fields[4].str() == "uids";
  if (!named) {
    auto batch = outbox_batch(fields);
    if (!batch)
      return std::nullopt;
    return entry_cards{std::move(batch), {}};
  }
  // A stream entry is field, value pairs: an odd count is followed by "".
  auto count = listed_count(fields[5].str());
  if (!count || *count + *count % 2 != fields.size() - listed_at ||
      (*count % 2 == 1 && !fields[fields.size() - 1].str().empty()))
    return std::nullopt;
  entry_cards out;
  out.uids.reserve(*count);
  for (std::size_t i = 0; i < *count; ++i)
    out.uids.push_back(fields[listed_at + i].str());
  return out;
}

/// The entries of one stream in an XREAD reply, their cards still sealed:
/// those an entry names are read from the account's shared store, with the
/// account's table of origins, in one round trip for all of them (an HMGET
/// and an HGETALL per entry), and each origin is written out: what a peer is
/// sent names no number of this store's. A uid the store no longer holds
/// (its account was removed: send_book_before_removal in store/lua/lib.lua
/// sent what the peer could be owed) is left out; an entry left with no card
/// is sent nowhere (plan_window).
caf::expected<std::vector<outbox_entry>> parse_entries(redis_client& redis, reply_view v,
                                                       const std::string& peer) {
  std::vector<outbox_entry> out;
  out.reserve(v.size());
  std::vector<std::string> shared_keys; // outlive the commands that name them
  std::vector<command> reads;
  std::vector<std::size_t> read_for; // the entry each read is for
  shared_keys.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto entry = v[i];
    if (entry.size() != 2)
      return caf::make_error(ec::store_corrupt, "malformed outbox entry for " + peer);
    outbox_entry e{std::string(entry[0].str()),
                   stream_field(entry[1], "id"),
                   kind_named(stream_field(entry[1], "kind")),
                   {}};
    auto cards = cards_of(entry[1]);
    if (!cards)
      return caf::make_error(ec::store_corrupt, "outbox entry " + e.id + " for " + peer +
                                                    " has a count of cards that does "
                                                    "not match its fields");
    if (cards->inline_batch) {
      e.batch = std::move(*cards->inline_batch);
    } else if (!cards->uids.empty()) {
      shared_keys.push_back(keys::shared(e.idcode));
      command read{"HMGET", shared_keys.back()};
      read.insert(read.end(), cards->uids.begin(), cards->uids.end());
      reads.push_back(std::move(read));
      // After the records: a number, once in the table, names its origin
      // until the account is removed.
      shared_keys.push_back(keys::origins(e.idcode));
      reads.push_back({"HGETALL", shared_keys.back()});
      read_for.push_back(out.size());
    }
    out.push_back(std::move(e));
  }
  if (reads.empty())
    return out;
  auto records = redis.pipeline(reads);
  if (!records)
    return std::move(records.error());
  std::string written_out;
  for (std::size_t r = 0; r < reads.size(); r += 2) {
    auto held = (*records)[r].view();
    auto table = (*records)[r + 1].view();
    if (held.is_error() || table.is_error())
      return caf::make_error(ec::store_unavailable,
                             "HMGET: " +
                                 std::string((held.is_error() ? held : table).str()));
    const auto names = origin_names_of(table);
    auto& entry = out[read_for[r / 2]];
    auto& batch = entry.batch;
    std::size_t bytes = 0;
    for (std::size_t j = 0; j < held.size(); ++j)
      bytes += reads[r][2 + j].size() + held[j].str().size() + 64; // "<len>:", origin
    batch.reserve(bytes);
    for (std::size_t j = 0; j < held.size(); ++j) {
      if (held[j].is_nil())
        continue;
      // One that cannot be written out goes as it is: it does not open
      // either (unseal_entry), which sets the entry aside.
      written_out.clear();
      auto record = held[j].str();
      if (core::append_record_written_out(written_out, record, &names))
        record = written_out;
      append_netstring(batch, reads[r][2 + j]);
      append_netstring(batch, record);
    }
  }
  return out;
}

} // namespace

std::optional<std::uint64_t> listed_count(std::string_view digits) {
  std::uint64_t count = 0;
  auto [end, failed] =
      std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (failed != std::errc{} || end != digits.data() + digits.size())
    return std::nullopt;
  return count;
}

std::string stream_field(reply_view fields, std::string_view name) {
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2)
    if (fields[i].str() == name)
      return std::string(fields[i + 1].str());
  return {};
}

std::optional<std::string> outbox_batch(reply_view fields) {
  // id, <idcode>, kind, <kind>, cards, <count>, then the pairs.
  constexpr std::size_t pairs_at = 6;
  if (fields.size() >= pairs_at && fields[4].str() == "uids")
    return std::string{}; // its records are in the shared store
  if (fields.size() < pairs_at || fields[4].str() != "cards")
    return stream_field(fields, "batch");
  auto count = listed_count(fields[5].str());
  if (!count || *count != (fields.size() - pairs_at) / 2 ||
      (fields.size() - pairs_at) % 2 != 0)
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
  return parse_entries(redis, v[0][1], peer);
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
