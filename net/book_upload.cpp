#include "net/book_upload.hpp"

#include <algorithm>
#include <cctype>

namespace simsync::net {

namespace {

bool starts_begin_vcard(std::string_view text) {
  constexpr std::string_view begin = "begin:vcard";
  if (text.size() < begin.size())
    return false;
  for (std::size_t i = 0; i < begin.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != begin[i])
      return false;
  return true;
}

/// Moves entries larger than `max` into `rejected`. An entry's bytes are a
/// slice of the body and entries keep the body's order, so one forward walk
/// finds each one's line and its index (the number of BEGIN:VCARD lines before it).
void reject_oversize(std::string_view body, std::size_t max, checked_book& book) {
  auto too_big = [max](const core::book_entry& e) { return e.card.size() > max; };
  if (std::none_of(book.entries.begin(), book.entries.end(), too_big))
    return;
  std::size_t pos = 0;
  std::size_t line = 1;
  std::size_t cards_before = 0;
  bool pos_is_entry = false;
  std::vector<core::book_entry> kept;
  for (auto& entry : book.entries) {
    auto at = body.find(entry.card, pos);
    if (at == std::string_view::npos)
      at = pos; // cannot happen for prepare_book's slices; keep the walk going
    for (auto i = pos; i < at; ++i) {
      bool line_start = i == 0 || body[i - 1] == '\n' || (i == pos && pos_is_entry);
      if (line_start && starts_begin_vcard(body.substr(i)))
        ++cards_before;
      if (body[i] == '\n')
        ++line;
    }
    pos = at;
    pos_is_entry = true;
    if (too_big(entry))
      book.rejected.push_back({cards_before, line,
                               "card of " + std::to_string(entry.card.size()) +
                                   " bytes exceeds the limit of " + std::to_string(max)});
    else
      kept.push_back(std::move(entry));
  }
  book.entries = std::move(kept);
  std::sort(book.rejected.begin(), book.rejected.end(),
            [](const auto& a, const auto& b) { return a.index < b.index; });
}

} // namespace

nlohmann::json card_errors_json(const std::vector<core::card_error>& rejected) {
  auto out = nlohmann::json::array();
  for (const auto& r : rejected)
    out.push_back({{"index", r.index}, {"line", r.line}, {"reason", r.reason}});
  return out;
}

checked_book check_book(std::string_view body, const gateway_limits& limits) {
  auto prepared = core::prepare_book(body);
  checked_book book{std::move(prepared.entries), std::move(prepared.rejected), {}};
  auto cards = book.entries.size() + book.rejected.size();
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
