#include "net/book_upload.hpp"

#include <algorithm>
#include <cctype>

namespace simsync::net {

namespace {

/// Moves entries larger than `max` into `rejected`. An entry's bytes are a
/// slice of the body and entries keep the body's order, so one forward walk
/// finds each one's line.
void reject_oversize(std::string_view body, std::size_t max, checked_book& book) {
  auto too_big = [max](const core::book_entry& e) { return e.card.size() > max; };
  if (std::none_of(book.entries.begin(), book.entries.end(), too_big))
    return;
  std::size_t pos = 0;
  std::size_t line = 1;
  std::vector<core::book_entry> kept;
  for (auto& entry : book.entries) {
    auto at = body.find(entry.card, pos);
    if (at == std::string_view::npos)
      at = pos; // cannot happen for prepare_book's slices; keep the walk going
    line +=
        static_cast<std::size_t>(std::count(body.begin() + pos, body.begin() + at, '\n'));
    pos = at;
    if (too_big(entry))
      book.rejected.push_back({entry.index, line,
                               "card of " + std::to_string(entry.card.size()) +
                                   " bytes exceeds the limit of " + std::to_string(max)});
    else
      kept.push_back(std::move(entry));
  }
  book.entries = std::move(kept);
  // Stable: text outside a card stays before the card at the same index.
  std::stable_sort(book.rejected.begin(), book.rejected.end(),
                   [](const auto& a, const auto& b) { return a.index < b.index; });
}

} // namespace

nlohmann::json card_errors_json(const std::vector<core::card_error>& rejected) {
  auto out = nlohmann::json::array();
  for (const auto& r : rejected)
    out.push_back({{"index", r.index}, {"line", r.line}, {"reason", r.reason}});
  return out;
}

nlohmann::json assigned_uids_json(const std::vector<core::book_entry>& entries) {
  auto out = nlohmann::json::object();
  for (const auto& e : entries)
    if (e.uid_assigned)
      out[std::to_string(e.index)] = e.uid;
  return out;
}

checked_book check_book(std::string_view body, const gateway_limits& limits,
                        bool empty_on_purpose) {
  checked_book book;
  if (empty_on_purpose) {
    if (!core::is_blank_body(body))
      book.error = problem{400, "empty-with-cards", "empty=true needs an empty body",
                           "the request asks to empty the book but its body is not "
                           "empty; send a blank body, or leave empty=true out"};
    return book;
  }
  auto prepared = core::prepare_book(body);
  book.entries = std::move(prepared.entries);
  book.rejected = std::move(prepared.rejected);
  if (prepared.cards == 0) {
    book.error = problem{422, "no-cards", "The body holds no card",
                         "no BEGIN:VCARD..END:VCARD in the body, so nothing was "
                         "stored; to empty the book on purpose, send a blank body "
                         "with empty=true"};
    if (!book.rejected.empty())
      book.error->extra["errors"] = card_errors_json(book.rejected);
    return book;
  }
  auto cards = prepared.cards;
  if (cards > limits.max_cards_per_book) {
    book.error = problem{422, "too-many-cards", "The book has too many cards",
                         std::to_string(cards) + " cards; at most " +
                             std::to_string(limits.max_cards_per_book) + " per book"};
    return book;
  }
  reject_oversize(body, limits.max_card_bytes, book);
  if (book.entries.empty() && !book.rejected.empty()) {
    book.error = problem{422, "no-valid-card", "No card of the book could be read",
                         std::to_string(book.rejected.size()) +
                             " card(s) rejected and none accepted; nothing was stored"};
    book.error->extra["errors"] = card_errors_json(book.rejected);
  }
  return book;
}

} // namespace simsync::net
