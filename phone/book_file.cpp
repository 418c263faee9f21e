#include "phone/book_file.hpp"

#include "core/canonical.hpp"
#include "core/vcard.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace simsync::phone {

std::vector<local_card> read_book(std::string_view text) {
  std::vector<local_card> book;
  for (const auto& block : core::parse_vcards(text)) {
    std::string uid;
    // The same identity the server gives the card (docs/architecture.md, data semantics),
    // so incoming changes find it whether or not the card carries its own UID.
    if (block.ok()) {
      auto own = core::explicit_uid(block.card);
      uid = own.empty() ? core::derived_uid(block.card) : std::string(own);
    }
    book.push_back({std::move(uid), std::string(block.bytes)});
  }
  return book;
}

std::string write_book(const std::vector<local_card>& book) {
  std::string text;
  for (const auto& card : book) {
    text += card.bytes;
    if (!card.bytes.empty() && card.bytes.back() != '\n')
      text += "\r\n";
  }
  return text;
}

void merge_changes(std::vector<local_card>& book,
                   const std::vector<core::book_entry>& incoming,
                   const std::vector<std::string>& removed_uids) {
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < book.size(); ++i)
    if (!book[i].uid.empty())
      position.emplace(book[i].uid, i);
  for (const auto& entry : incoming) {
    if (auto it = position.find(entry.uid); it != position.end()) {
      book[it->second].bytes = entry.card;
    } else {
      position.emplace(entry.uid, book.size());
      book.push_back({entry.uid, entry.card});
    }
  }
  std::unordered_set<std::string> removed(removed_uids.begin(), removed_uids.end());
  book.erase(std::remove_if(book.begin(), book.end(),
                            [&](const local_card& c) {
                              return !c.uid.empty() && removed.count(c.uid) > 0;
                            }),
             book.end());
}

std::size_t count_cards(std::string_view text) {
  return core::parse_vcards(text).size();
}

} // namespace simsync::phone
