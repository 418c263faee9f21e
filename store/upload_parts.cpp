#include "store/upload_parts.hpp"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace simsync::store {

upload_plan::upload_plan(upload_request whole, part_sizes sizes) {
  const auto over = [&](std::size_t most) {
    return most > 0 && whole.cards.size() > most;
  };
  const bool snapshot_in_parts = whole.mode == upload_mode::snapshot &&
                                 (over(sizes.delta_cards) || over(sizes.compare_above));
  const bool delta_in_parts = whole.mode == upload_mode::delta && over(sizes.delta_cards);
  if (!snapshot_in_parts && !delta_in_parts) {
    waiting_.push_back(std::move(whole));
    return;
  }
  auto cards = std::move(whole.cards);
  whole.cards.clear();
  // Each part is the whole request (line, proof, guard, ...) but its items.
  auto part_of = [&](upload_mode mode) {
    upload_request part = whole;
    part.mode = mode;
    part.later_part = !waiting_.empty();
    return part;
  };
  // Cards [from, to) by uid and hash alone.
  auto named = [&](std::size_t from, std::size_t to) {
    std::vector<core::book_entry> out;
    out.reserve(to - from);
    for (auto i = from; i < to; ++i)
      out.push_back(
          {cards[i].uid, cards[i].hash, {}, cards[i].index, cards[i].uid_assigned});
    return out;
  };
  // (No bound on a part: one of that kind.)
  const auto bound = [&](std::size_t most) { return most > 0 ? most : cards.size(); };
  if (snapshot_in_parts) {
    for (std::size_t from = 0; from < cards.size(); from += bound(sizes.compare_cards)) {
      auto compare = part_of(upload_mode::compare);
      compare.cards =
          named(from, std::min(cards.size(), from + bound(sizes.compare_cards)));
      waiting_.push_back(std::move(compare));
      ++compares_left_;
    }
    // Its uids are taken from the deltas if it is sent (compared): mostly it
    // is not, and 50,000 of them were a copy of a few megabytes.
    waiting_.push_back(part_of(upload_mode::prune));
  }
  for (std::size_t from = 0; from < cards.size(); from += bound(sizes.delta_cards)) {
    auto part = part_of(upload_mode::delta);
    auto begin = cards.begin() + static_cast<std::ptrdiff_t>(from);
    auto end = cards.size() - from > bound(sizes.delta_cards)
                   ? begin + static_cast<std::ptrdiff_t>(bound(sizes.delta_cards))
                   : cards.end();
    part.cards.assign(std::make_move_iterator(begin), std::make_move_iterator(end));
    waiting_.push_back(std::move(part));
  }
}

std::optional<upload_request> upload_plan::next(std::size_t ahead) {
  if (finished() || waiting_.empty())
    return std::nullopt;
  const bool overlaps =
      answers_ > 0 && last_asked_delta_ && waiting_.front().mode == upload_mode::delta;
  if (overlaps ? asked_.size() >= ahead : !asked_.empty())
    return std::nullopt;
  auto part = std::move(waiting_.front());
  waiting_.pop_front();
  asked_.push_back(part.mode);
  last_asked_delta_ = part.mode == upload_mode::delta;
  return part;
}

void upload_plan::answered(const upload_result& r) {
  if (asked_.empty())
    return;
  const auto mode = asked_.front();
  asked_.pop_front();
  ++answers_;
  add_part_result(sum_, r);
  if (mode != upload_mode::compare)
    return;
  cards_to_send_ += r.cards_to_send;
  base_holds_ += r.base_holds;
  base_size_ = std::max(base_size_, r.base_size);
  discarded_ = discarded_ || r.discarded;
  if (compares_left_ > 0)
    --compares_left_;
  // A line that holds nothing (a new line's first book) holds none of the
  // cards the other compares name: they are not asked.
  if (r.base_size == 0 && !r.discarded)
    while (compares_left_ > 0 && !waiting_.empty() &&
           waiting_.front().mode == upload_mode::compare) {
      cards_to_send_.append(waiting_.front().cards.size(), '1');
      waiting_.pop_front();
      --compares_left_;
    }
  if (compares_left_ == 0)
    compared();
}

void upload_plan::compared() {
  if (waiting_.empty() || waiting_.front().mode != upload_mode::prune)
    return;
  auto prune = std::move(waiting_.front());
  waiting_.pop_front();
  std::size_t cards = 0;
  for (const auto& part : waiting_)
    cards += part.cards.size();
  // An answer that does not fit the deltas (it cannot: each compare's fits
  // its cards) sends every card, and the prune reads the base's uids.
  const bool fits = cards_to_send_.size() == cards;
  // The base held no more than the snapshot's cards (or the book had
  // rejected cards: it removes nothing), and nothing discarded waits to be
  // settled: the prune would do nothing, so it is not asked.
  const bool removes = prune.allow_removals && base_size_ > base_holds_;
  std::deque<upload_request> kept;
  if (!fits || removes || discarded_) {
    prune.cards.reserve(cards);
    for (const auto& part : waiting_)
      for (const auto& card : part.cards)
        prune.cards.push_back({card.uid, {}, {}, card.index, card.uid_assigned});
    prune.base_holds = fits ? base_holds_ : 0;
    kept.push_back(std::move(prune));
  }
  std::size_t at = 0;
  for (auto& part : waiting_) {
    if (fits) {
      std::vector<core::book_entry> sent;
      for (auto& card : part.cards)
        if (cards_to_send_[at++] != '0')
          sent.push_back(std::move(card));
      if (sent.empty())
        continue;
      part.cards = std::move(sent);
    }
    kept.push_back(std::move(part));
  }
  waiting_ = std::move(kept);
}

bool upload_plan::finished() const {
  return sum_.held_for_confirmation() || (waiting_.empty() && asked_.empty());
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
