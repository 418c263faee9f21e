#include "core/book_diff.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

namespace simsync::core {

book_diff diff_book(const std::vector<book_entry>& snapshot, const book_base& base) {
  book_diff out;
  std::unordered_set<std::string_view> seen;
  seen.reserve(snapshot.size());
  std::size_t matched = 0; // base entries present in the snapshot
  for (const auto& entry : snapshot) {
    if (!seen.insert(entry.uid).second)
      continue;
    auto held = base.find(entry.uid);
    if (held == base.end()) {
      out.added.push_back(entry.uid);
      continue;
    }
    ++matched;
    if (held->second == entry.hash)
      ++out.unchanged;
    else
      out.changed.push_back(entry.uid);
  }
  // Every base entry was seen: nothing to remove, skip the second pass.
  if (matched == base.size())
    return out;
  for (const auto& [uid, hash] : base)
    if (seen.count(uid) == 0)
      out.removed.push_back(uid);
  std::sort(out.removed.begin(), out.removed.end());
  return out;
}

} // namespace simsync::core
