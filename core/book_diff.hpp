#pragma once

#include "core/book.hpp"
#include "core/content_hash.hpp"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace simsync::core {

/// What a line held after its last upload or apply: uid -> content hash.
using book_base = std::unordered_map<std::string, content_hash>;

/// The changes a line intends with an uploaded snapshot, by UID.
struct book_diff {
  std::vector<std::string> added;   ///< in the snapshot, not in the base (snapshot order)
  std::vector<std::string> changed; ///< in both, hash differs (snapshot order)
  std::vector<std::string> removed; ///< in the base, not in the snapshot (sorted)
  std::size_t unchanged = 0;        ///< in both with the same hash
};

/// Diffs a snapshot against the line's base. Only the base can produce
/// removals, so contacts the line never took are not deleted by a snapshot
/// that lacks them (F2). A UID repeated in the snapshot counts once,
/// at its first occurrence. `removed` is sorted so the result does not depend
/// on the base's hash order.
book_diff diff_book(const std::vector<book_entry>& snapshot, const book_base& base);

} // namespace simsync::core
