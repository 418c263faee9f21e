#include "core/book.hpp"

#include "core/canonical.hpp"
#include "core/detail/vcard_text.hpp"
#include "core/parts_in_parallel.hpp"
#include "core/vcard.hpp"

#include <algorithm>
#include <unordered_map>

namespace simsync::core {

namespace {

/// What reading one slice of a body met, in order, before UIDs are settled
/// (they depend on the cards before, so that is done for the whole book at
/// once). Indexes and lines count from the slice's start.
struct slice_item {
  enum class what { card, bad_card, text_outside } kind = what::card;
  std::size_t index = 0; ///< of the card (for text outside: of the card after it)
  std::size_t line = 0;  ///< the card's first line, the error's, or the text's
  std::string error;     ///< a bad card's reason
  content_hash hash;
  std::string uid; ///< the card's own UID, or the base of a derived one
  bool uid_derived = false;
  std::string bytes; ///< the card's, copied here: on the slice's thread
};

struct read_slice {
  std::vector<slice_item> items;
  std::size_t cards = 0;
  std::size_t lines = 0; ///< line breaks in the slice
};

/// Reads and hashes the cards of one slice: the work that takes a large
/// book's time, done for each slice on its own.
read_slice read_cards(std::string_view slice) {
  read_slice out;
  out.lines = static_cast<std::size_t>(std::count(slice.begin(), slice.end(), '\n'));
  vcard_reader reader(slice);
  vcard_block block;
  auto note_text_outside = [&](std::size_t index) {
    if (std::size_t line = reader.skipped_text_line(); line != 0)
      out.items.push_back(
          {slice_item::what::text_outside, index, line, {}, {}, {}, false, {}});
  };
  std::size_t index = 0;
  for (; reader.next(&block); ++index) {
    note_text_outside(index);
    if (!block.ok()) {
      out.items.push_back({slice_item::what::bad_card,
                           index,
                           block.error_line,
                           std::move(block.error),
                           {},
                           {},
                           false,
                           {}});
      continue;
    }
    std::string_view own = explicit_uid(block.card);
    out.items.push_back({slice_item::what::card,
                         index,
                         block.line,
                         {},
                         canonical_hash(block.card),
                         own.empty() ? derived_uid(block.card) : std::string(own),
                         own.empty(),
                         std::string(block.bytes)});
  }
  note_text_outside(index);
  out.cards = index;
  return out;
}

/// Whether the line at `at` (a line start, `at > 0`) is "BEGIN:VCARD" as
/// the reader sees it wherever it stands: inside a card it reads logical
/// lines, so the line must not be joined to the one before it (a
/// quoted-printable soft break: that line ends with '=') nor have the one
/// after it folded into it (it starts with a space or a tab). Lines break
/// at '\n', less one '\r' before it.
bool is_begin_whatever_came_before(std::string_view body, std::size_t at) {
  constexpr std::string_view begin = "BEGIN:VCARD";
  if (body.substr(at, begin.size()) != begin)
    return false;
  std::size_t end = at + begin.size();
  if (end < body.size() && body[end] == '\r')
    ++end;
  if (end < body.size() && body[end] != '\n')
    return false;
  std::size_t next = end + 1;
  if (next < body.size() && (body[next] == ' ' || body[next] == '\t'))
    return false;
  std::size_t before = at - 1; // the '\n' that ends the line before
  if (before > 0 && body[before - 1] == '\r')
    --before;
  return before == 0 || body[before - 1] != '=';
}

/// Where slices of about `slice_bytes` start (0 first): each at a line
/// "BEGIN:VCARD" that starts a card whatever came before it (a card not
/// ended is cut short there, text outside a card ends there), so each slice
/// reads alone as it does within the whole.
std::vector<std::size_t> slice_starts(std::string_view body, std::size_t slice_bytes) {
  std::vector<std::size_t> starts{0};
  std::size_t from = slice_bytes;
  while (from < body.size()) {
    std::size_t at = body.find("\nBEGIN:VCARD", from);
    if (at == std::string_view::npos)
      break;
    if (!is_begin_whatever_came_before(body, at + 1)) {
      from = at + 1;
      continue;
    }
    starts.push_back(at + 1);
    from = at + 1 + slice_bytes;
  }
  return starts;
}

} // namespace

prepared_book prepare_book(std::string_view body, std::size_t slice_bytes) {
  auto starts = slice_starts(body, std::max<std::size_t>(1, slice_bytes));
  std::vector<read_slice> slices(starts.size());
  parts_in_parallel(slices.size(), 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      std::size_t stop = i + 1 < starts.size() ? starts[i + 1] : body.size();
      slices[i] = read_cards(body.substr(starts[i], stop - starts[i]));
    }
  });

  prepared_book book;
  // The hash of the card that took each UID, to tell an exact duplicate
  // (dropped) from a different card (suffixed or rejected).
  std::unordered_map<std::string, content_hash> taken;
  // Room for every good card at once (the items already hold them).
  std::size_t good = 0;
  for (const auto& slice : slices)
    good += static_cast<std::size_t>(
        std::count_if(slice.items.begin(), slice.items.end(), [](const auto& item) {
          return item.kind == slice_item::what::card;
        }));
  taken.reserve(good);
  book.entries.reserve(good);
  std::size_t first_index = 0; // of the slice's first card in the book
  std::size_t lines_before = 0;
  for (auto& slice : slices) {
    for (auto& item : slice.items) {
      std::size_t index = first_index + item.index;
      std::size_t line = lines_before + item.line;
      if (item.kind == slice_item::what::text_outside) {
        book.rejected.push_back({index, line, std::string(text_outside_a_card)});
        continue;
      }
      if (item.kind == slice_item::what::bad_card) {
        book.rejected.push_back({index, line, std::move(item.error)});
        continue;
      }
      if (!item.uid_derived) {
        auto [it, inserted] = taken.try_emplace(item.uid, item.hash);
        if (inserted)
          book.entries.push_back(
              {it->first, item.hash, std::move(item.bytes), index, false});
        else if (it->second != item.hash)
          book.rejected.push_back({index, line, "duplicate UID"});
        continue;
      }
      // Two different contacts may derive the same UID (same name and
      // numbers, different e-mail): number them by order of appearance,
      // which a re-upload of the same export repeats.
      std::string uid = item.uid;
      for (int suffix = 2;; ++suffix) {
        auto [it, inserted] = taken.try_emplace(uid, item.hash);
        if (inserted) {
          book.entries.push_back(
              {std::move(uid), item.hash, std::move(item.bytes), index, true});
          break;
        }
        if (it->second == item.hash)
          break;
        uid = item.uid + "-" + std::to_string(suffix);
      }
    }
    first_index += slice.cards;
    lines_before += slice.lines;
  }
  book.cards = first_index;
  return book;
}

bool is_blank_body(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF")
    body.remove_prefix(3);
  return detail::trim(body).empty();
}

} // namespace simsync::core
