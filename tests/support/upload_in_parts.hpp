#pragma once

// A book stored as the gateway stores it (net/routes.cpp): for the store
// tests and benchmarks that send one in parts without a carrierd.

#include "store/account_store.hpp"
#include "store/upload_parts.hpp"

#include <cstddef>

namespace simsync::testing {

/// `req` cut by store::upload_parts and sent a part at a time, until the last
/// or one held for confirmation, a snapshot's deltas without the cards its
/// prune found the line holds (store::drop_cards_held). The parts' results
/// added up, or the first error; `calls` (if given) counts the calls made.
inline caf::expected<store::upload_result>
upload_in_parts(store::account_store& s, store::upload_request req,
                std::size_t part_cards = store::upload_part_cards,
                std::size_t* calls = nullptr) {
  store::upload_result sum;
  auto parts = store::upload_parts(std::move(req), part_cards);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (calls)
      ++*calls;
    auto r = s.upload(parts[i]);
    if (!r)
      return r;
    store::add_part_result(sum, *r);
    if (r->held_for_confirmation())
      break;
    if (i == 0)
      store::drop_cards_held(parts, r->cards_to_send);
  }
  return sum;
}

} // namespace simsync::testing
