#include "core/book.hpp"

#include "core/canonical.hpp"
#include "core/detail/vcard_text.hpp"
#include "core/vcard.hpp"

#include <unordered_map>

namespace simsync::core {

prepared_book prepare_book(std::string_view body) {
  prepared_book book;
  // The hash of the card that took each UID, to tell an exact duplicate
  // (dropped) from a different card (suffixed or rejected).
  std::unordered_map<std::string, content_hash> taken;
  vcard_reader reader(body);
  vcard_block block;
  auto reject_skipped_text = [&](std::size_t index) {
    if (std::size_t line = reader.skipped_text_line(); line != 0)
      book.rejected.push_back({index, line, std::string(text_outside_a_card)});
  };
  std::size_t index = 0;
  for (; reader.next(&block); ++index) {
    reject_skipped_text(index);
    if (!block.ok()) {
      book.rejected.push_back({index, block.error_line, std::move(block.error)});
      continue;
    }
    content_hash hash = canonical_hash(block.card);

    if (std::string_view own = explicit_uid(block.card); !own.empty()) {
      auto [it, inserted] = taken.try_emplace(std::string(own), hash);
      if (inserted)
        book.entries.push_back({it->first, hash, std::string(block.bytes), index, false});
      else if (it->second != hash)
        book.rejected.push_back({index, block.line, "duplicate UID"});
      continue;
    }

    // Two different contacts may derive the same UID (same name and numbers,
    // different e-mail): number them by order of appearance, which a
    // re-upload of the same export repeats.
    const std::string base = derived_uid(block.card);
    std::string uid = base;
    for (int suffix = 2;; ++suffix) {
      auto [it, inserted] = taken.try_emplace(uid, hash);
      if (inserted) {
        book.entries.push_back(
            {std::move(uid), hash, std::string(block.bytes), index, true});
        break;
      }
      if (it->second == hash)
        break;
      uid = base + "-" + std::to_string(suffix);
    }
  }
  reject_skipped_text(index);
  book.cards = index;
  return book;
}

bool is_blank_body(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF")
    body.remove_prefix(3);
  return detail::trim(body).empty();
}

} // namespace simsync::core
