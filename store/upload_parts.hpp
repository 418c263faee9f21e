#pragma once

// A large upload as several script calls, so that no one call holds Redis
// for a whole book: every other line of that Redis waits behind a call, and
// a 50,000-card snapshot was one call of about half a second.
//
// A snapshot goes as compares of its cards, a few thousand at a time, which
// store nothing and answer which cards the line holds as they are; then, if
// the line holds more cards than the compares found, scans of the uids it
// holds, a page at a time, to find those the snapshot leaves out; then, if
// it leaves some out (or the line discarded changes of cards it does not
// name), a prune of those: its removals, with the mass-deletion guard,
// before any card is stored; then its cards as deltas, but for those the
// line holds (a re-sync of an unchanged book is the compares alone: no card
// is sealed, sent or read again). A delta goes as smaller deltas. Each part
// is atomic, and the parts together store what the one call would have: a
// card's write depends on that card alone, and what the snapshot leaves out
// is known from its uids. Another line's change may land between two parts,
// as it could land just before or after the one call; a card the line takes
// from another line after the scans is not one its snapshot left out. A
// part that fails leaves the parts before it stored: nothing was
// acknowledged, and the book sent again finds them unchanged.

#include "store/account_store.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>

namespace simsync::store {

/// The cards of one delta. Each costs Redis about 10 µs at the origin
/// (bench/store_upload_bench): a part holds Redis for about 20 ms.
inline constexpr std::size_t upload_part_cards = 2000;

/// The cards of one compare: about 1.5 µs each in Redis, so a compare holds
/// it for about 8 ms.
inline constexpr std::size_t compare_part_cards = 5000;

/// The uids a scan of what the line holds answers, about (HSCAN's COUNT):
/// about 0.5 µs each in Redis.
inline constexpr std::size_t scan_page_uids = 5000;

/// A snapshot of more cards than this goes in parts even when they fit one
/// delta: a phone sends its whole book again whenever it is unsure what the
/// server holds, and the compares answer which cards it needs (a book the
/// line holds as it is: none, so none is sealed or sent). A smaller one goes
/// as it is: one call.
inline constexpr std::size_t snapshot_compare_above = 100;

/// How big each kind of part may be (0: no bound on that kind; a scan of
/// 0 uids is one of scan_page_uids).
struct part_sizes {
  std::size_t delta_cards = upload_part_cards;
  std::size_t compare_cards = compare_part_cards;
  std::size_t compare_above = snapshot_compare_above;
  std::size_t scan_uids = scan_page_uids;
};

/// One upload's parts, handed out in order as they may go, and the sum of
/// their answers. A compare, a scan or a prune goes alone, since what it
/// answers decides the parts after it, and so does the first part, which may be
/// refused for replication lag before anything else is asked; the deltas
/// after it go up to `ahead` at a time, so that the store works on one while
/// the gateway seals the next.
class upload_plan {
public:
  explicit upload_plan(upload_request whole, part_sizes sizes = {});

  /// The next part to ask for, if one may go now.
  std::optional<upload_request> next(std::size_t ahead);
  /// The store's answer to the oldest part asked for and not answered yet.
  void answered(const upload_result& r);
  /// Every part asked for is answered and none is left, or one held the
  /// snapshot for confirmation: answer with sum().
  bool finished() const;
  const upload_result& sum() const { return sum_; }
  /// The parts not asked for yet, in order.
  const std::deque<upload_request>& waiting() const { return waiting_; }

private:
  /// The compares' answers are all in: the deltas without the cards the
  /// line holds; the scans, if the line holds cards the snapshot leaves out.
  void compared();
  /// A scan of the uids the line holds, from `cursor`, to go next.
  void scan_from(std::string cursor);
  /// The scans' answers are all in (or none was needed): the prune of what
  /// the snapshot leaves out, if it leaves anything out or settles anything.
  void prune_what_is_left_out();

  std::deque<upload_request> waiting_;
  std::deque<upload_mode> asked_; ///< asked for and not answered, oldest first
  std::size_t answers_ = 0;
  bool last_asked_delta_ = false;
  std::size_t compares_left_ = 0;
  std::size_t scan_uids_ = 0;
  /// The compares' answers: their cards to send, in order; how many of the
  /// snapshot's uids the base holds; its size; the uids whose changes the
  /// line discarded.
  std::string cards_to_send_;
  std::uint64_t base_holds_ = 0;
  std::uint64_t base_size_ = 0;
  std::set<std::string> discarded_;
  /// The snapshot's prune (no uids yet), until it is asked or not needed.
  std::optional<upload_request> prune_;
  /// The snapshot's uids, while the scans look for what it leaves out.
  std::unordered_set<std::string> snapshot_uids_;
  /// What the scans found the line holds and the snapshot leaves out.
  std::set<std::string> left_out_;
  upload_result sum_;
};

/// The result of the parts so far, `sum`, with another part's added: its
/// counts and conflicts added, the version the latest of theirs.
void add_part_result(upload_result& sum, const upload_result& part);

} // namespace simsync::store
