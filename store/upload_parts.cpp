#include "store/upload_parts.hpp"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace simsync::store {

upload_plan::upload_plan(upload_request whole, part_sizes sizes)
    : scan_uids_(sizes.scan_uids > 0 ? sizes.scan_uids : scan_page_uids) {
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
    // Its uids are found if it is sent (compared): mostly it is not.
    prune_ = part_of(upload_mode::prune);
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
  if (mode == upload_mode::scan) {
    for (const auto& uid : r.base_uids)
      if (snapshot_uids_.count(uid) == 0)
        left_out_.insert(uid);
    if (!r.scan_cursor.empty() && r.scan_cursor != "0")
      scan_from(r.scan_cursor);
    else
      prune_what_is_left_out();
    return;
  }
  if (mode != upload_mode::compare)
    return;
  cards_to_send_ += r.cards_to_send;
  base_holds_ += r.base_holds;
  base_size_ = std::max(base_size_, r.base_size);
  discarded_.insert(r.discarded.begin(), r.discarded.end());
  if (compares_left_ > 0)
    --compares_left_;
  // A line that holds nothing (a new line's first book) holds none of the
  // cards the other compares name: they are not asked.
  if (r.base_size == 0 && r.discarded.empty())
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
  if (!prune_)
    return;
  std::size_t cards = 0;
  for (const auto& part : waiting_)
    cards += part.cards.size();
  // An answer that does not fit the deltas (it cannot: each compare's fits
  // its cards) sends every card, and scans what the line holds.
  const bool fits = cards_to_send_.size() == cards;
  // Only a line that holds more cards than the compares found of the
  // snapshot's holds some it leaves out (a book with rejected cards removes
  // nothing); only those, and the discarded cards it does not name, are
  // the prune's.
  const bool scans = prune_->allow_removals && (!fits || base_size_ > base_holds_);
  if (scans || !discarded_.empty()) {
    snapshot_uids_.reserve(cards);
    for (const auto& part : waiting_)
      for (const auto& card : part.cards)
        snapshot_uids_.insert(card.uid);
  }
  std::deque<upload_request> kept;
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
  if (scans)
    scan_from("0");
  else
    prune_what_is_left_out();
}

void upload_plan::scan_from(std::string cursor) {
  upload_request scan = *prune_;
  scan.mode = upload_mode::scan;
  scan.scan_cursor = std::move(cursor);
  scan.scan_count = scan_uids_;
  waiting_.push_front(std::move(scan));
}

void upload_plan::prune_what_is_left_out() {
  auto prune = std::move(*prune_);
  prune_.reset();
  for (const auto& uid : discarded_)
    if (snapshot_uids_.count(uid) == 0)
      left_out_.insert(uid);
  snapshot_uids_ = {};
  if (left_out_.empty())
    return;
  prune.uids.assign(left_out_.begin(), left_out_.end());
  left_out_.clear();
  waiting_.push_front(std::move(prune));
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
