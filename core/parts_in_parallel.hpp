#pragma once

// Per-card work of one large book (compressing and sealing 50,000 cards takes
// a core about a third of a second) spread over the machine's cores.

#include <cstddef>
#include <functional>

namespace simsync::core {

/// Calls `part(begin, end)` on disjoint ranges that together cover
/// [0, count): on the calling thread, and on helper threads when `count` is
/// at least twice `min_per_part` and a helper is free. Helpers are shared by
/// the whole process, at most one fewer than its cores, so many large books
/// at once never start more threads than cores; a book that finds none free
/// does its work alone. Returns when every part is done; an exception from a
/// part is rethrown here (the first part's first).
void parts_in_parallel(
    std::size_t count, std::size_t min_per_part,
    const std::function<void(std::size_t begin, std::size_t end)>& part);

} // namespace simsync::core
