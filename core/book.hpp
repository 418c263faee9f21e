#pragma once

#include "core/content_hash.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::core {

/// One card of an uploaded book, ready for the store: its identity, the hash
/// of its canonical form, and its original bytes (kept for a lossless round trip).
struct book_entry {
  std::string uid;
  content_hash hash;
  std::string card; ///< the card's original bytes, BEGIN:VCARD..END:VCARD
  /// 0-based position of the card in the book (the numbering card_error uses).
  std::size_t index = 0;
  /// True when the card had no UID and `uid` was derived by the server: the
  /// phone learns it from the upload answer, to address the card later.
  bool uid_assigned = false;
};

/// A card that could not be taken: where it is and why. Reported, quarantined,
/// and never read as a deletion of what the server already holds.
struct card_error {
  std::size_t index = 0; ///< 0-based position of the card in the book
  std::size_t line = 0;  ///< 1-based line of the body where the problem is
  std::string reason;
};

/// A book split into good cards and rejected ones.
struct prepared_book {
  std::vector<book_entry> entries;
  std::vector<card_error> rejected; ///< by index
  /// BEGIN:VCARD blocks in the body, good or bad. Zero means the body holds
  /// no card at all (empty, blank, or text that is not vCard), which is
  /// never a book to be taken as "remove everything".
  std::size_t cards = 0;
};

/// The reason given for text outside any card.
inline constexpr std::string_view text_outside_a_card = "text outside a card";

/// Parses a body of vCards (2.1, 3.0, 4.0; many cards), gives every card its
/// UID (its own, or a stable one derived from name and numbers), and hashes
/// its canonical form. One bad card never spoils the others. Duplicate UIDs:
/// an exact duplicate card is dropped; a second, different card with the
/// same explicit UID is rejected. Text outside the cards other than blank
/// lines is rejected like a bad card: its index is the position where it
/// stands (the index of the card after it, or the number of cards when it
/// trails them), its line the first line of it.
/// A large body is read in slices of about `slice_bytes` on several threads
/// (parts_in_parallel), cut only where a card starts whatever came before;
/// the result is the same as one reader's.
prepared_book prepare_book(std::string_view body, std::size_t slice_bytes = 1 << 20);

/// True if the body is empty or only blank (spaces, tabs, line breaks; a
/// UTF-8 BOM): what a phone sends to empty a book on purpose.
bool is_blank_body(std::string_view body);

} // namespace simsync::core
