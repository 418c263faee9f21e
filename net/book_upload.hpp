#pragma once

// An uploaded book checked against the gateway's limits, ready for the store.

#include "core/book.hpp"
#include "net/limits.hpp"
#include "net/problem.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace simsync::net {

struct checked_book {
  std::vector<core::book_entry> entries;
  std::vector<core::card_error> rejected; ///< by index; reported and quarantined
  std::optional<problem> error;           ///< set: answer it and store nothing
};

/// Parses a book and applies the per-card and per-book limits: a card larger
/// than max_card_bytes is rejected like a malformed one; more cards than
/// max_cards_per_book, or rejected cards and no good one, is a 422 problem
/// listing the per-card errors. A body that holds no card at all (empty,
/// blank, plain text) is 422 `no-cards`: emptying a book takes
/// `empty_on_purpose` (?empty=true) and a blank body, which is then a book
/// of zero cards; `empty_on_purpose` with anything else in the body is 400.
checked_book check_book(std::string_view body, const gateway_limits& limits,
                        bool empty_on_purpose = false);

/// The per-card errors as problem+json / upload-answer members.
nlohmann::json card_errors_json(const std::vector<core::card_error>& rejected);

/// {"<index>": "<uid>"} for every entry whose UID the server assigned: the
/// phone keeps them to address those cards later.
nlohmann::json assigned_uids_json(const std::vector<core::book_entry>& entries);

} // namespace simsync::net
