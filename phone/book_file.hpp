#pragma once
// The user's address book file as the phone edits it when applying changes.

#include "core/book.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace simsync::phone {

/// One card of the local book: its bytes as written, and its UID (empty for
/// a card that does not parse, which is kept as it is rather than lost).
struct local_card {
  std::string uid;
  std::string bytes;
};

/// The cards of a book file, in order.
std::vector<local_card> read_book(std::string_view text);

/// The book as a file body: the cards' bytes, each ending in a line break.
std::string write_book(const std::vector<local_card>& book);

/// Applies a fetched change set: a card with an incoming UID is replaced in
/// place, a new one appended, and the removed UIDs dropped.
void merge_changes(std::vector<local_card>& book,
                   const std::vector<core::book_entry>& incoming,
                   const std::vector<std::string>& removed_uids);

/// Number of cards in a book body, bad ones included.
std::size_t count_cards(std::string_view text);

} // namespace simsync::phone
