// A book read in slices on several threads, on any bytes a phone could send:
// prepare_book cuts a large body only where a card starts whatever came
// before, so the book it gives (entries, their UIDs and hashes, rejections
// with their indexes and lines) must be the one a single reader gives.
// Slices of 1 byte cut at every card that can be cut at.

#include "core/book.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace simsync;

namespace {

bool same(const core::prepared_book& a, const core::prepared_book& b) {
  if (a.cards != b.cards || a.entries.size() != b.entries.size() ||
      a.rejected.size() != b.rejected.size())
    return false;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const auto &x = a.entries[i], &y = b.entries[i];
    if (x.uid != y.uid || !(x.hash == y.hash) || x.card != y.card || x.index != y.index ||
        x.uid_assigned != y.uid_assigned)
      return false;
  }
  for (std::size_t i = 0; i < a.rejected.size(); ++i) {
    const auto &x = a.rejected[i], &y = b.rejected[i];
    if (x.index != y.index || x.line != y.line || x.reason != y.reason)
      return false;
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto body = fuzz::text_of(data, size);
  auto whole = core::prepare_book(body, body.size() + 1);
  fuzz::require(same(core::prepare_book(body, 1), whole),
                "a book read in slices is the book read whole");
  return 0;
}
