#include "actors/incoming_entries.hpp"

#include "core/card_compression.hpp"
#include "core/record.hpp"
#include "core/stamp.hpp"
#include "core/vcard.hpp"
#include "logging/log.hpp"
#include "logging/throttle.hpp"
#include "store/netstrings.hpp"

#include <algorithm>

namespace simsync {

namespace {

/// Lua numbers are doubles: integers are exact up to 2^53.
constexpr std::uint64_t exact_in_lua = std::uint64_t{1} << 53;

bool is_idcode(const std::string& idcode) {
  return idcode.size() == 64 && std::all_of(idcode.begin(), idcode.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

/// A uid comes from the card it names, so a card's limit bounds it.
std::string uid_refusal(std::string_view uid, const entry_limits& limits) {
  if (uid.empty() || uid.size() > limits.max_card_bytes)
    return "a uid is empty or longer than a card may be";
  return {};
}

std::string stamp_refusal(std::uint64_t hlc, std::uint64_t latest) {
  if (hlc >= exact_in_lua)
    return "a stamp is beyond what the store represents exactly";
  if (hlc > latest)
    return "a stamp is further ahead of this carrier's clock than allowed";
  return {};
}

/// A compressed card is expanded, bounded, to be checked like any other; it
/// is then stored as it came, so its own size is bounded too.
std::string card_refusal(const std::string& stored, const entry_limits& limits) {
  auto most = [&] { return std::to_string(limits.max_card_bytes) + " bytes"; };
  // Kept from card to card for its room, like the blocks below.
  thread_local std::string expanded;
  bool compressed = core::is_compressed_card(stored);
  if (compressed) {
    if (stored.size() > core::compressed_card_bound(limits.max_card_bytes))
      return "a compressed card is larger than a card of " + most() + " compresses to";
    if (!core::expand_card_into(stored, expanded, limits.max_card_bytes))
      return "a compressed card does not expand, or expands to more than " + most();
  }
  const std::string& card = compressed ? expanded : stored;
  if (card.size() > limits.max_card_bytes)
    return "a card is larger than " + most();
  core::vcard_reader reader{card};
  // Kept from card to card for their room (vcard_reader::next): `block` is
  // always read again, `rest` only when a record holds a second card.
  thread_local core::vcard_block block, rest;
  if (!reader.next(&block))
    return "a record holds no vCard";
  if (!block.ok())
    return "a card does not parse: " + block.error;
  if (reader.next(&rest) || reader.skipped_text_line() != 0)
    return "a record holds more than one vCard";
  return {};
}

std::string batch_refusal(const std::string& batch, std::uint64_t latest,
                          const entry_limits& limits) {
  auto items = store::split_netstrings(batch);
  if (!items || items->empty() || items->size() % 2 != 0)
    return "the batch is not pairs of uid and record";
  // Kept from record to record for its strings' room.
  thread_local core::stamped_card record;
  for (std::size_t i = 0; i < items->size(); i += 2) {
    if (auto why = uid_refusal((*items)[i], limits); !why.empty())
      return why;
    if (!core::decode_record((*items)[i + 1], record))
      return "a record does not parse";
    if (auto why = stamp_refusal(record.st.hlc, latest); !why.empty())
      return why;
    if (record.deleted) {
      if (auto why = stamp_refusal(record.removes.hlc, latest); !why.empty())
        return why;
    } else if (auto why = card_refusal(record.card, limits); !why.empty()) {
      return why;
    }
  }
  return {};
}

} // namespace

entry_limits entry_limits_of(const config::node_config& cfg) {
  entry_limits limits;
  limits.max_clock_skew = cfg.max_clock_skew;
  return limits;
}

std::string entry_refusal(const store::outbox_entry& entry, std::uint64_t now_ms,
                          const entry_limits& limits) {
  if (!is_idcode(entry.idcode))
    return "the idcode is not 64 lower-case hex digits";
  if (entry.kind != store::outbox_kind::batch)
    return entry.batch.empty() ? std::string()
                               : "a directory entry (ask, hold, retire) carries a batch";
  auto skew = static_cast<std::uint64_t>(limits.max_clock_skew.count());
  auto latest = (now_ms + skew + 1) * core::hlc_logical_per_ms - 1;
  return batch_refusal(entry.batch, latest, limits);
}

void warn_not_sibling(const std::string& origin, const store::replicate_result& applied) {
  static logging::throttle refused;
  if (applied.not_sibling == 0)
    return;
  if (auto left_out = refused.admit())
    logging::warn("batch_not_sibling", {{"peer", origin},
                                        {"changes", applied.not_sibling},
                                        {"not_logged_since", *left_out}});
}

} // namespace simsync
