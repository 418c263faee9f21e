#include "core/book.hpp"

#include "core/canonical.hpp"
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
  for (std::size_t index = 0; reader.next(&block); ++index) {
    if (!block.ok()) {
      book.rejected.push_back({index, block.error_line, std::move(block.error)});
      continue;
    }
    content_hash hash = canonical_hash(block.card);

    if (std::string_view own = explicit_uid(block.card); !own.empty()) {
      auto [it, inserted] = taken.try_emplace(std::string(own), hash);
      if (inserted)
        book.entries.push_back({it->first, hash, std::string(block.bytes)});
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
        book.entries.push_back({std::move(uid), hash, std::string(block.bytes)});
        break;
      }
      if (it->second == hash)
        break;
      uid = base + "-" + std::to_string(suffix);
    }
  }
  return book;
}

} // namespace simsync::core
