#include "store/account_calls.hpp"

#include "core/parts_in_parallel.hpp"
#include "core/record.hpp"
#include "store/sealed_records.hpp"

#include <string>

namespace simsync::store {

caf::error corrupt(const std::string& what) {
  return caf::make_error(ec::store_corrupt, what);
}

bool read_counts(reply_view v, std::size_t n, std::uint64_t* out) {
  if (!v.is_array() || v.size() < n)
    return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!v[i].is_integer())
      return false;
    out[i] = static_cast<std::uint64_t>(v[i].integer());
  }
  return true;
}

std::string_view scope_name(scope s) {
  return s == scope::shared ? "shared" : "private";
}

std::string hlc_of(std::uint64_t now_ms) {
  return std::to_string(now_ms * core::hlc_logical_per_ms);
}

caf::expected<core::stamped_card>
open_card(const core::keyring& keys, std::string_view stored, std::string_view idcode,
          const std::string& what, const core::origin_names& names) {
  auto clear = open_record(keys, stored, idcode);
  if (!clear)
    return corrupt(what + ": " + why_unopened(keys, stored, idcode));
  auto rec = core::decode_record(*clear, &names);
  if (!rec)
    return corrupt(what + " is not a record, or names an origin its account's table "
                          "of origins does not");
  return std::move(*rec);
}

core::origin_names origin_names_of(reply_view flat) {
  core::origin_names names;
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2)
    names.emplace(flat[i].str(), flat[i + 1].str());
  return names;
}

namespace {

std::string_view mode_name(upload_mode m) {
  switch (m) {
  case upload_mode::snapshot:
    return "snapshot";
  case upload_mode::delta:
    return "delta";
  case upload_mode::remove:
    return "remove";
  case upload_mode::compare:
    return "compare";
  case upload_mode::scan:
    return "scan";
  case upload_mode::prune:
    return "prune";
  }
  return "delta";
}

caf::expected<change_kind> kind_of(std::string_view name) {
  if (name == "added")
    return change_kind::added;
  if (name == "changed")
    return change_kind::changed;
  if (name == "removed")
    return change_kind::removed;
  return corrupt("unknown change kind " + std::string(name));
}

} // namespace

// -- upload --------------------------------------------------------------------

// A card is compressed and sealed in about 5 µs: a helper thread is worth
// starting for this many (a large book's upload, never an edit's).
constexpr std::size_t cards_per_sealing_part = 1000;

upload_call::upload_call(const upload_request& req, const std::string& carrier,
                         std::shared_ptr<const core::keyring> keys,
                         history_policy history)
    : sealed_with_(std::move(keys)), hlc_(hlc_of(req.now_ms)),
      confirmed_(std::to_string(req.confirm_removals)),
      mass_min_(std::to_string(req.guard.min_cards)),
      mass_percent_(std::to_string(req.guard.percent)),
      keep_ms_(std::to_string(history.keep_ms)),
      keep_count_(std::to_string(history.keep_count)), mode_(req.mode) {
  args_ = {req.idcode,          req.line,  req.token_hash, scope_name(req.scope),
           mode_name(req.mode), hlc_,      carrier,        req.allow_removals ? "1" : "0",
           confirmed_,          mass_min_, mass_percent_,  keep_ms_,
           keep_count_};
  if (req.mode == upload_mode::remove || req.mode == upload_mode::prune) {
    args_.insert(args_.end(), req.uids.begin(), req.uids.end());
    return;
  }
  if (req.mode == upload_mode::scan) {
    scan_count_ = std::to_string(req.scan_count);
    args_.push_back(req.scan_cursor);
    args_.push_back(scan_count_);
    return;
  }
  if (req.mode == upload_mode::compare) {
    // A compare's hashes in one argument: 50,000 of their own were about
    // 20 ms more of the script's time (Redis makes a Lua string of each
    // argument).
    compared_hashes_.reserve(16 * req.cards.size());
    for (const auto& card : req.cards)
      card.hash.append_bytes(compared_hashes_);
    args_.push_back(compared_hashes_);
    args_.reserve(args_.size() + req.cards.size());
    for (const auto& card : req.cards)
      args_.push_back(card.uid);
    compared_ = req.cards.size();
    return;
  }
  // Filled before any view names them, so that nothing moves under a view.
  // Each card goes as the line's record of it stamped now, which the script
  // stores as it is unless the account's clock is past now (it was a sixth
  // of a book's work in Redis to make them there).
  // The records write the line's origin as its number, which the script
  // claims in the account's table of origins.
  const auto& cards = req.cards;
  const auto now_hlc = req.now_ms * core::hlc_logical_per_ms;
  origin_number_ = core::origin_number(carrier, req.line);
  hashes_.resize(cards.size());
  records_.resize(cards.size());
  core::parts_in_parallel(
      cards.size(), cards_per_sealing_part, [&](std::size_t begin, std::size_t end) {
        for (auto i = begin; i < end; ++i) {
          hashes_[i] = cards[i].hash.bytes();
          records_[i] = core::encode_live_record(
              now_hlc, cards[i].hash, carrier, req.line,
              seal_card(*sealed_with_, cards[i].card, req.idcode), origin_number_);
        }
      });
  args_.reserve(args_.size() + 1 + 3 * cards.size());
  args_.push_back(origin_number_);
  for (std::size_t i = 0; i < cards.size(); ++i) {
    args_.push_back(cards[i].uid);
    args_.push_back(hashes_[i]);
    args_.push_back(records_[i]);
  }
}

caf::expected<upload_result> upload_call::read(reply_view v) const {
  std::uint64_t n[7];
  if (!read_counts(v, 7, n))
    return corrupt("upload answered an unexpected reply");
  upload_result out;
  out.version = n[0];
  out.added = n[1];
  out.changed = n[2];
  out.removed = n[3];
  out.unchanged = n[4];
  out.would_remove = n[5];
  out.book_size = n[6];
  const auto is_text = [&](std::size_t i) {
    return !v[i].is_integer() && !v[i].is_array() && !v[i].is_nil() && !v[i].is_error();
  };
  // The reply's items from `from` on, each a string (a scan's or a
  // compare's uids); false if one is not.
  const auto texts_from = [&](std::size_t from, std::vector<std::string>& out) {
    for (std::size_t i = from; i < v.size(); ++i) {
      if (!is_text(i))
        return false;
      out.emplace_back(v[i].str());
    }
    return true;
  };
  if (mode_ == upload_mode::scan) {
    // The next cursor, then the page's uids.
    if (v.size() < 8 || !is_text(7) || v[7].str().empty() ||
        v[7].str().find_first_not_of("0123456789") != std::string_view::npos)
      return corrupt("a scan answered an unexpected reply");
    out.scan_cursor = std::string(v[7].str());
    if (!texts_from(8, out.base_uids))
      return corrupt("a scan answered an unexpected reply");
    return out;
  }
  if (mode_ == upload_mode::compare) {
    // A character for each card named, then two counts, then the discarded
    // uids and their count.
    if (v.size() < 11 || !is_text(7) || !v[8].is_integer() || !v[9].is_integer() ||
        !v[10].is_integer() || v[10].integer() < 0 ||
        v.size() - 11 != static_cast<std::size_t>(v[10].integer()))
      return corrupt("a compare answered an unexpected reply");
    out.cards_to_send = std::string(v[7].str());
    if (out.cards_to_send.size() != compared_ ||
        out.cards_to_send.find_first_not_of("01") != std::string::npos)
      return corrupt("a compare answered cards to send that do not fit its cards");
    out.base_holds = static_cast<std::uint64_t>(v[8].integer());
    out.base_size = static_cast<std::uint64_t>(v[9].integer());
    if (!texts_from(11, out.discarded))
      return corrupt("a compare answered an unexpected reply");
    return out;
  }
  // Then the conflicts, as uid, reason pairs.
  if ((v.size() - 7) % 2 != 0)
    return corrupt("upload answered an unexpected reply");
  for (std::size_t i = 7; i + 1 < v.size(); i += 2)
    out.conflicts.push_back({std::string(v[i].str()), std::string(v[i + 1].str())});
  return out;
}

// -- update --------------------------------------------------------------------

update_call::update_call(const std::string& idcode, const std::string& line,
                         std::string_view token_hash)
    : idcode_(idcode), line_(line), token_hash_(token_hash) {
  args_ = {idcode_, line_, token_hash_};
}

caf::expected<pending_counts> update_call::read(reply_view v) const {
  std::uint64_t n[3];
  if (!read_counts(v, 3, n))
    return corrupt("update_request answered an unexpected reply");
  return pending_counts{n[0], n[1], n[2]};
}

// -- fetch ---------------------------------------------------------------------

fetch_call::fetch_call(const pending_request& req,
                       std::shared_ptr<const core::keyring> keys)
    : req_(req), keys_(std::move(keys)), limit_(std::to_string(req.limit)) {
  args_ = {req_.idcode, req_.line, req_.token_hash, limit_, req_.next, req_.known_tag};
}

caf::expected<pending_fetch> fetch_call::read(reply_view v) const {
  constexpr std::size_t head = 8;
  if (!v.is_array() || v.size() < head || (v.size() - head) % 3 != 0 || !v[7].is_array())
    return corrupt("fetch_pending answered an unexpected reply");
  const auto names = origin_names_of(v[7]);
  pending_fetch out;
  out.not_modified = v[0].str() == "not_modified";
  out.cursor = std::string(v[1].str());
  out.next = std::string(v[2].str());
  out.tag = std::string(v[3].str());
  std::uint64_t counts[3] = {0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!v[4 + i].is_integer())
      return corrupt("fetch_pending answered an unexpected reply");
    counts[i] = static_cast<std::uint64_t>(v[4 + i].integer());
  }
  out.counts = pending_counts{counts[0], counts[1], counts[2]};
  out.changes.reserve((v.size() - head) / 3);
  for (std::size_t i = head; i < v.size(); i += 3) {
    auto kind = kind_of(v[i + 1].str());
    if (!kind)
      return std::move(kind.error());
    auto rec = open_card(*keys_, v[i + 2].str(), req_.idcode,
                         "a pending change of line " + req_.line, names);
    if (!rec)
      return std::move(rec.error());
    out.changes.push_back(
        pending_change{std::string(v[i].str()), *kind, std::move(*rec)});
  }
  return out;
}

// -- ack -----------------------------------------------------------------------

ack_call::ack_call(const std::string& idcode, const std::string& line,
                   std::string_view token_hash, const std::string& cursor, decision what,
                   std::uint32_t step)
    : idcode_(idcode), line_(line), token_hash_(token_hash), cursor_(cursor),
      step_(std::to_string(step)) {
  args_ = {
      idcode_, line_, token_hash_, cursor_, what == decision::apply ? "apply" : "discard",
      step_};
}

caf::expected<ack_progress> ack_call::read(reply_view v) const {
  std::uint64_t n[2];
  if (!read_counts(v, 2, n) || v.size() != 2 || n[1] > 1)
    return corrupt("ack_pending answered an unexpected reply");
  return ack_progress{n[0], n[1] == 1};
}

} // namespace simsync::store
