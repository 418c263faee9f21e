#include "store/upload_parts.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace simsync::store {

std::vector<upload_request> upload_parts(upload_request whole, std::size_t part_cards,
                                         std::size_t prune_cards) {
  std::vector<upload_request> parts;
  const auto cards_over = [&](std::size_t most) {
    return most > 0 && whole.cards.size() > most;
  };
  const bool in_parts = (whole.mode == upload_mode::snapshot &&
                         (cards_over(part_cards) || cards_over(prune_cards))) ||
                        (whole.mode == upload_mode::delta && cards_over(part_cards));
  if (!in_parts) {
    parts.push_back(std::move(whole));
    return parts;
  }
  auto cards = std::move(whole.cards);
  whole.cards.clear();
  // Each part is the whole request (line, proof, guard, ...) but its items.
  auto part_of = [&](upload_mode mode) {
    upload_request part = whole;
    part.mode = mode;
    part.later_part = !parts.empty();
    return part;
  };
  if (whole.mode == upload_mode::snapshot) {
    auto prune = part_of(upload_mode::prune);
    prune.cards.reserve(cards.size());
    for (const auto& card : cards)
      prune.cards.push_back({card.uid, card.hash, {}, card.index, card.uid_assigned});
    parts.push_back(std::move(prune));
  }
  // (No bound on a part: the prune's deltas are one.)
  const std::size_t per_part = part_cards > 0 ? part_cards : cards.size();
  for (std::size_t from = 0; from < cards.size(); from += per_part) {
    auto part = part_of(upload_mode::delta);
    auto begin = cards.begin() + static_cast<std::ptrdiff_t>(from);
    auto end = cards.size() - from > per_part
                   ? begin + static_cast<std::ptrdiff_t>(per_part)
                   : cards.end();
    part.cards.assign(std::make_move_iterator(begin), std::make_move_iterator(end));
    parts.push_back(std::move(part));
  }
  return parts;
}

void drop_cards_held(std::vector<upload_request>& parts, std::string_view cards_to_send) {
  std::size_t cards = 0;
  for (std::size_t i = 1; i < parts.size(); ++i)
    cards += parts[i].cards.size();
  if (parts.empty() || parts[0].mode != upload_mode::prune ||
      cards_to_send.size() != cards)
    return;
  std::vector<upload_request> kept;
  kept.push_back(std::move(parts[0]));
  std::size_t at = 0;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    auto& part = parts[i];
    std::vector<core::book_entry> sent;
    for (auto& card : part.cards)
      if (cards_to_send[at++] != '0')
        sent.push_back(std::move(card));
    if (sent.empty())
      continue;
    part.cards = std::move(sent);
    kept.push_back(std::move(part));
  }
  parts = std::move(kept);
}

void add_part_result(upload_result& sum, const upload_result& part) {
  sum.version = std::max(sum.version, part.version);
  sum.added += part.added;
  sum.changed += part.changed;
  sum.removed += part.removed;
  sum.unchanged += part.unchanged;
  sum.conflicts.insert(sum.conflicts.end(), part.conflicts.begin(), part.conflicts.end());
  sum.would_remove = part.would_remove;
  sum.book_size = part.book_size;
}

} // namespace simsync::store
