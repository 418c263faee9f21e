#pragma once

// A large upload as several script calls, so that no one call holds Redis
// for a whole book: every other line of that Redis waits behind a call, and
// a 50,000-card snapshot was one call of about half a second. A snapshot
// goes as a prune (its removals, of what its uids leave out, with the
// mass-deletion guard, before any card is stored) and then its cards as
// deltas, but for those the prune found the line holds as they are (a
// re-sync of an unchanged book is the prune alone: no card is sealed, sent
// or read again); a delta goes as smaller deltas. Each part is atomic, and the
// parts together store what the one call would have: a card's write depends
// on that card alone, and what the snapshot leaves out is known from its
// uids. Another line's change may land between two parts, as it could land
// just before or after the one call. A part that fails leaves the parts
// before it stored: nothing was acknowledged, and the book sent again
// finds them unchanged.

#include "store/account_store.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace simsync::store {

/// The cards of one part. Each costs Redis about 10 µs at the origin
/// (bench/store_upload_bench): a part holds Redis for about 20 ms.
inline constexpr std::size_t upload_part_cards = 2000;

/// A snapshot of more cards than this goes as a prune and deltas even when
/// they fit one part: a phone sends its whole book again whenever it is
/// unsure what the server holds, and the prune answers which cards it needs
/// (a book the line holds as it is: none, so none is sealed or sent). A
/// smaller one goes as it is: one call, where the prune would be a second.
inline constexpr std::size_t snapshot_prune_cards = 100;

/// `whole` as the calls to make in order: itself when it is a removal, a
/// delta of at most `part_cards` cards or a snapshot of at most
/// `prune_cards`; otherwise, for a snapshot, a prune of its uids and then
/// its cards as deltas of at most `part_cards`; for a delta, deltas of at
/// most `part_cards`. Every part after the first is a later_part.
std::vector<upload_request> upload_parts(upload_request whole,
                                         std::size_t part_cards = upload_part_cards,
                                         std::size_t prune_cards = snapshot_prune_cards);

/// `parts` (upload_parts' snapshot: a prune, then deltas) without the cards
/// its prune answered the line holds as they are (upload_result's
/// cards_to_send, one character per card of the deltas, in order: '0' for
/// such a card), and without the deltas left empty. Unchanged unless the
/// first part is a prune and the answer has a character for every card:
/// sending a card the line holds costs work, never a wrong result.
void drop_cards_held(std::vector<upload_request>& parts, std::string_view cards_to_send);

/// The result of the parts so far, `sum`, with another part's added: its
/// counts and conflicts added, the version the latest of theirs.
void add_part_result(upload_result& sum, const upload_result& part);

} // namespace simsync::store
