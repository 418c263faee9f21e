#pragma once

// A book of simple realistic cards for the store and node benchmarks, ready
// for the store (uid, hash, bytes) without going through the vCard codec,
// so those benchmarks measure Redis and replication only.

#include "core/book.hpp"

#include <string>
#include <vector>

namespace simsync::bench {

/// `cards` cards; a different `variant` changes every card's name.
inline std::vector<core::book_entry> sample_book(int cards,
                                                 const std::string& variant = "") {
  std::vector<core::book_entry> book;
  book.reserve(static_cast<size_t>(cards));
  for (int i = 0; i < cards; ++i) {
    core::book_entry e;
    e.uid = "uid-" + std::to_string(i);
    e.card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + e.uid + "\r\nFN:张伟 " + variant +
             std::to_string(i) + "\r\nN:张;伟;;;\r\nTEL;TYPE=CELL:+86138" +
             std::to_string(10000000 + i) + "\r\nEMAIL:zhang.wei" + std::to_string(i) +
             "@example.com\r\nEND:VCARD\r\n";
    e.hash = core::content_hash::of(e.card);
    book.push_back(std::move(e));
  }
  return book;
}

} // namespace simsync::bench
