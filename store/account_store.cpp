#include "store/account_store.hpp"

#include "core/record.hpp"
#include "logging/log.hpp"
#include "store/account_calls.hpp"
#include "store/history_entry.hpp"
#include "store/keys.hpp"
#include "store/operator_streams.hpp"
#include "store/origin_numbers.hpp"
#include "store/replies.hpp" // made from store/contract/replies.list
#include "store/reseal.hpp"
#include "store/scripts.hpp"
#include "store/sealed_records.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

namespace simsync::store {

namespace {

/// Runs a script whose reply is a list of counts (store/contract/replies.list).
template <class Reply>
caf::expected<Reply> script_counts(redis_client& redis, script which,
                                   const std::vector<std::string_view>& args) {
  auto r = run_script(redis, which, args);
  if (!r)
    return std::move(r.error());
  std::array<std::uint64_t, Reply::size> counts{};
  if (!read_counts(r->view(), Reply::size, counts.data()))
    return corrupt(std::string(Reply::script) + " answered an unexpected reply");
  return Reply::from(counts.data());
}

/// The page with the sealed msisdns of this carrier's lines that made its
/// changes (one pipelined read), so that the gateway can show their numbers.
/// A line at another carrier, or one retired since, keeps its line id only.
caf::expected<history_page> with_sealed_msisdns(redis_client& redis,
                                                const std::string& carrier,
                                                const std::string& idcode,
                                                history_page page) {
  std::vector<std::string> lines;
  for (const auto& c : page.changes)
    if (c.carrier == carrier &&
        std::find(lines.begin(), lines.end(), c.line) == lines.end())
      lines.push_back(c.line);
  if (lines.empty())
    return page;
  std::vector<std::string> line_keys;
  for (const auto& line : lines)
    line_keys.push_back(keys::line(idcode, line));
  std::vector<command> reads;
  for (const auto& key : line_keys)
    reads.push_back({"HGET", key, "msisdn"});
  auto sealed = redis.pipeline(reads);
  if (!sealed)
    return std::move(sealed.error());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto v = (*sealed)[i].view();
    if (!v.is_nil() && !v.is_error())
      page.sealed_msisdns.emplace(lines[i], std::string(v.str()));
  }
  return page;
}

} // namespace

account_store::account_store(redis_client& redis, std::string carrier,
                             std::shared_ptr<const core::shared_keyring> keys,
                             history_policy history)
    : redis_(redis), carrier_(std::move(carrier)), keys_(std::move(keys)),
      history_(history) {}

caf::expected<register_result> account_store::register_line(const register_request& req) {
  // Held until Redis answers (core::shared_keyring::older_writers_in_use):
  // the values the gateway sealed, and the user info it read from the
  // subscriber record, land sealed with this ring's writer.
  auto ring = keys_->current();
  auto user_info = sealed_by_writer(*ring, req.sealed_user_info, req.idcode);
  auto msisdn = sealed_by_writer(*ring, req.sealed_msisdn, req.idcode);
  auto now = std::to_string(req.now_ms);
  std::vector<std::string_view> args{
      req.idcode, req.line, req.iccid_hash, req.token_hash, user_info, msisdn, now};
  args.insert(args.end(), req.peers.begin(), req.peers.end());
  auto v = script_counts<replies::register_line>(redis_, script::register_line, args);
  if (!v)
    return std::move(v.error());
  return register_result{v->account_created != 0, v->line_added != 0};
}

caf::expected<bool> account_store::remove_line(const std::string& idcode,
                                               const std::string& line,
                                               std::string_view token_hash,
                                               const std::vector<std::string>& peers) {
  auto v = script_counts<replies::remove_line>(redis_, script::remove_line,
                                               {idcode, line, token_hash});
  if (!v)
    return std::move(v.error());
  if (v->account_removed == 0)
    return false;
  // Apart from the removal's script: the streams are the node's, not the
  // account's, and may be long; the account is gone whatever happens here,
  // and what is left stays sealed until the streams' trim.
  if (auto dropped = drop_account_entries(redis_, peers, idcode); !dropped)
    logging::error("operator_entries_not_dropped",
                   {{"idcode", idcode}, {"error", describe(dropped.error())}});
  return true;
}

caf::expected<std::vector<subscriber_outcome>>
account_store::put_subscribers(std::vector<subscriber_record> records,
                               std::uint64_t now_ms) {
  auto ring = keys_->current(); // held until Redis answers, as in register_line
  std::vector<subscriber_outcome> out;
  out.reserve(records.size());
  for (auto& record : records) {
    record.sealed_user_info =
        sealed_by_writer(*ring, std::move(record.sealed_user_info), record.idcode);
    auto r = put_subscriber(redis_, record, now_ms);
    if (!r)
      return std::move(r.error());
    out.push_back(std::move(*r));
  }
  return out;
}

caf::expected<claim_result> account_store::claim_line(const std::string& line,
                                                      const std::string& idcode,
                                                      std::uint64_t now_ms,
                                                      const std::string& take_over_from) {
  auto now = std::to_string(now_ms);
  auto r = run_script(redis_, script::claim_line, {line, idcode, now, take_over_from});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array() || v.size() != 3 || !v[0].is_integer())
    return corrupt("claim_line answered an unexpected reply");
  claim_result out;
  out.claimed = v[0].integer() != 0;
  out.owner = std::string(v[1].str());
  out.since_ms = std::strtoull(std::string(v[2].str()).c_str(), nullptr, 10);
  return out;
}

caf::expected<bool> account_store::release_claim(const std::string& line,
                                                 const std::string& idcode) {
  auto v = script_counts<replies::release_claim>(redis_, script::release_claim,
                                                 {line, idcode});
  if (!v)
    return std::move(v.error());
  return v->released != 0;
}

caf::expected<std::optional<line_info>>
account_store::find_line(const std::string& line) {
  auto key = keys::sim(line);
  auto r = redis_.call({"HMGET", key, "id", "iccid_hash", "token"});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array() || v.size() != 3)
    return corrupt("HMGET answered an unexpected reply");
  if (v[0].is_nil())
    return std::optional<line_info>{};
  return std::optional<line_info>{line_info{
      std::string(v[0].str()), std::string(v[1].str()), std::string(v[2].str())}};
}

caf::expected<std::vector<std::string>>
account_store::token_hashes(const std::string& idcode) {
  auto lines = redis_.call({"SMEMBERS", keys::sims(idcode)});
  if (!lines)
    return std::move(lines.error());
  auto v = lines->view();
  if (!v.is_array())
    return corrupt("SMEMBERS answered an unexpected reply");
  // Every line's token in one more round trip, however many lines.
  std::vector<std::string> sim_keys;
  for (std::size_t i = 0; i < v.size(); ++i)
    sim_keys.push_back(keys::sim(std::string(v[i].str())));
  std::vector<command> reads;
  for (const auto& key : sim_keys)
    reads.push_back({"HGET", key, "token"});
  if (reads.empty())
    return std::vector<std::string>{};
  auto tokens = redis_.pipeline(reads);
  if (!tokens)
    return std::move(tokens.error());
  std::vector<std::string> out;
  for (const auto& token : *tokens)
    if (!token.view().is_nil() && !token.view().is_error())
      out.emplace_back(token.view().str());
  return out;
}

caf::expected<upload_result> account_store::upload(const upload_request& req) {
  return run_call(redis_, upload_call{req, carrier_, keys_->current(), history_});
}

caf::expected<history_page>
account_store::read_history(const std::string& idcode, const std::string& line,
                            std::string_view token_hash, scope where,
                            const std::string& before, std::size_t limit) {
  auto key = where == scope::shared ? keys::history(idcode)
                                    : keys::private_history(idcode, line);
  // `before` is "<entry id>.<n>": that entry, less its first n changes, then older ones.
  std::string from = "+";
  std::size_t skip = 0;
  if (auto dot = before.find('.'); dot != std::string::npos) {
    from = before.substr(0, dot);
    skip = std::stoull(before.substr(dot + 1));
  }
  // Every entry holds at least one change: one more entry than asked tells
  // whether there is a next page.
  auto count = std::to_string(limit + 1);
  // The check first: a refused token must not cost the read.
  if (auto checked = run_script(redis_, script::check_access, {idcode, line, token_hash});
      !checked)
    return std::move(checked.error());
  auto r = redis_.call({"XREVRANGE", key, from, "-", "COUNT", count});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array())
    return corrupt("XREVRANGE answered an unexpected reply");
  history_page page;
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto entry = v[i];
    if (!entry.is_array() || entry.size() != 2 || !entry[1].is_array())
      return corrupt("an entry of " + key + " is not a stream entry");
    history_change change;
    change.id = std::string(entry[0].str());
    change.at_ms = std::stoull(change.id.substr(0, change.id.find('-')));
    auto read = read_history_entry(entry[1]);
    if (!read)
      return corrupt("an entry of " + key + " lists its uids badly");
    change.kind = std::string(read->kind);
    change.carrier = std::string(read->carrier);
    change.line = std::string(read->line);
    for (std::size_t n = i == 0 ? skip : 0; n < read->uids.size(); ++n) {
      if (page.changes.size() == limit) {
        page.next = change.id + "." + std::to_string(n);
        return with_sealed_msisdns(redis_, carrier_, idcode, std::move(page));
      }
      change.uid = std::string(read->uids[n]);
      page.changes.push_back(change);
    }
  }
  return with_sealed_msisdns(redis_, carrier_, idcode, std::move(page));
}

caf::expected<upload_result> account_store::restore(const restore_request& req) {
  auto at = std::to_string(req.at_ms);
  auto hlc = hlc_of(req.now_ms);
  auto keep_ms = std::to_string(history_.keep_ms);
  auto keep_count = std::to_string(history_.keep_count);
  auto n = script_counts<replies::restore>(
      redis_, script::restore,
      {req.idcode, req.line, req.token_hash, scope_name(req.scope), at,
       req.preview ? "1" : "0", hlc, carrier_, keep_ms, keep_count});
  if (!n)
    return std::move(n.error());
  upload_result out;
  out.version = n->version;
  out.added = n->added;
  out.changed = n->changed;
  out.removed = n->removed;
  return out;
}

caf::expected<sealed_delivery> seal_delivery(const core::keyring& keys,
                                             std::string origin,
                                             const std::vector<outbox_entry>& entries) {
  // A peer's entries arrive clear (TLS protected them on the way): this
  // carrier seals their cards with its own keys before they are stored.
  sealed_delivery out{std::move(origin), {}, {}};
  out.entries.reserve(entries.size());
  out.items.reserve(entries.size());
  for (const auto& e : entries) {
    out.entries.push_back(outbox_entry{e.id, e.idcode, e.kind, {}});
    if (e.kind != outbox_kind::batch) {
      out.items.emplace_back();
      continue;
    }
    auto batch = sealed_items(keys, e.batch, e.idcode);
    if (!batch)
      return caf::make_error(ec::invalid_request, "an entry of " + out.origin +
                                                      " for account " + e.idcode +
                                                      " holds a malformed batch");
    out.items.push_back(std::move(*batch));
  }
  return out;
}

caf::expected<replicate_result>
account_store::apply_incoming(const std::string& origin,
                              const std::vector<outbox_entry>& entries) {
  auto ring = keys_->current(); // held until applied: key rotation waits for it
  auto sealed = seal_delivery(*ring, origin, entries);
  if (!sealed)
    return std::move(sealed.error());
  return apply_incoming(*sealed);
}

caf::expected<replicate_result>
account_store::apply_incoming(const sealed_delivery& delivery) {
  auto keep_ms = std::to_string(history_.keep_ms);
  auto keep_count = std::to_string(history_.keep_count);
  auto now_ms = std::to_string(core::unix_now_ms());
  const auto& entries = delivery.entries;
  // Each record's form is checked here, once, and read on the way: each
  // batch's newest stamp (what the account's clock observes) and, when all
  // its records are live versions from one line, that line's origin text
  // (what history notes for each). In the script, a pattern per card was a
  // third of a book's apply in Redis, and the origin and kind per card a
  // sixth of what was left.
  // Then each record is kept with its origin as its number in the account's
  // table of origins, which the script claims (origin_numbering): an
  // entry's records so written back to back in one string, each ending at
  // its place in `ends`.
  std::vector<std::string> counts, newest, claims;
  std::vector<std::vector<std::string>> claimed;
  std::vector<std::string_view> live_origin;
  std::vector<std::string> numbered(entries.size());
  std::vector<std::vector<std::size_t>> ends(entries.size());
  counts.reserve(entries.size());
  newest.reserve(entries.size());
  claimed.reserve(entries.size());
  live_origin.reserve(entries.size());
  std::size_t items = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& batch = delivery.items[i];
    std::uint64_t top = 0;
    std::optional<std::string_view> origin;
    origin_numbering numbering;
    std::size_t bytes = 0;
    for (std::size_t j = 1; j < batch.size(); j += 2)
      bytes += batch[j].size();
    numbered[i].reserve(bytes);
    ends[i].reserve(batch.size() / 2);
    for (std::size_t j = 1; j < batch.size(); j += 2) {
      auto hlc = core::checked_record_hlc(batch[j]);
      if (!hlc)
        return caf::make_error(ec::invalid_request,
                               "an entry of " + delivery.origin + " for account " +
                                   entries[i].idcode + " holds a malformed record");
      top = std::max(top, *hlc);
      auto written = core::record_origin(batch[j]);
      auto from = core::record_is_tombstone(batch[j]) ? std::string_view{} : written;
      if (!origin)
        origin = from;
      else if (*origin != from)
        origin = std::string_view{}; // more than one, or a removal
      numbering.append(numbered[i], batch[j], written);
      ends[i].push_back(numbered[i].size());
    }
    counts.push_back(std::to_string(batch.size()));
    newest.push_back(std::to_string(top));
    live_origin.push_back(origin.value_or(std::string_view{}));
    claimed.push_back(numbering.claimed());
    claims.push_back(std::to_string(claimed.back().size()));
    items += batch.size();
  }
  std::vector<std::string_view> args;
  args.reserve(4 + 6 * entries.size() + 4 * entries.size() + items);
  args.push_back(delivery.origin);
  args.push_back(keep_ms);
  args.push_back(keep_count);
  args.push_back(now_ms);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    args.push_back(kind_name(entries[i].kind));
    args.push_back(entries[i].idcode);
    args.push_back(counts[i]);
    args.push_back(newest[i]);
    args.push_back(live_origin[i]);
    args.push_back(claims[i]);
    args.insert(args.end(), claimed[i].begin(), claimed[i].end());
    const auto& batch = delivery.items[i];
    const std::string_view kept = numbered[i];
    std::size_t at = 0;
    for (std::size_t j = 0; j + 1 < batch.size(); j += 2) {
      auto end = ends[i][j / 2];
      args.push_back(batch[j]);
      args.push_back(kept.substr(at, end - at));
      at = end;
    }
  }
  auto v = script_counts<replies::apply_incoming>(redis_, script::apply_incoming, args);
  if (!v)
    return std::move(v.error());
  return replicate_result{
      v->applied,        v->identical,        v->stale,      v->asked, v->answered,
      v->siblings_added, v->siblings_removed, v->not_sibling};
}

caf::expected<pending_counts> account_store::request_update(const std::string& idcode,
                                                            const std::string& line,
                                                            std::string_view token_hash) {
  return run_call(redis_, update_call{idcode, line, token_hash});
}

caf::expected<pending_fetch> account_store::fetch_pending(const std::string& idcode,
                                                          const std::string& line,
                                                          std::string_view token_hash) {
  return fetch_page(pending_request{idcode, line, std::string(token_hash), 0, "", ""});
}

caf::expected<pending_fetch> account_store::fetch_page(const pending_request& req) {
  return run_call(redis_, fetch_call{req, keys_->current()});
}

caf::expected<std::size_t> account_store::ack_pending(const std::string& idcode,
                                                      const std::string& line,
                                                      std::string_view token_hash,
                                                      const std::string& cursor,
                                                      decision what) {
  auto r = ack_step(idcode, line, token_hash, cursor, what, 0);
  if (!r)
    return std::move(r.error());
  return static_cast<std::size_t>(r->acknowledged);
}

caf::expected<ack_progress> account_store::ack_step(const std::string& idcode,
                                                    const std::string& line,
                                                    std::string_view token_hash,
                                                    const std::string& cursor,
                                                    decision what, std::uint32_t step) {
  return run_call(redis_, ack_call{idcode, line, token_hash, cursor, what, step});
}

caf::expected<std::vector<stored_card>>
account_store::read_cards(const std::string& idcode, const std::string& line,
                          std::string_view token_hash, scope where) {
  auto key =
      where == scope::shared ? keys::shared(idcode) : keys::private_backup(idcode, line);
  // The check first: a refused token must not cost the read.
  if (auto checked = run_script(redis_, script::check_access, {idcode, line, token_hash});
      !checked)
    return std::move(checked.error());
  // The table of origins after the records: a number, once in it, names
  // its origin until the account is removed, so it names every number the
  // records read before it write.
  auto r = redis_.pipeline({{"HGETALL", key}, {"HGETALL", keys::origins(idcode)}});
  if (!r)
    return std::move(r.error());
  auto v = (*r)[0].view();
  const auto names = origin_names_of((*r)[1].view());
  std::vector<stored_card> out;
  out.reserve(v.size() / 2);
  for (std::size_t i = 0; i + 1 < v.size(); i += 2) {
    auto rec =
        open_card(*keys_->current(), v[i + 1].str(), idcode, "a card in " + key, names);
    if (!rec)
      return std::move(rec.error());
    if (!rec->deleted)
      out.push_back(stored_card{std::string(v[i].str()), std::move(*rec)});
  }
  return out;
}

} // namespace simsync::store
