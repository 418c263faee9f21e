#pragma once

// A book stored as the gateway stores it (net/routes.cpp): for the store
// tests and benchmarks that send one in parts without a carrierd.

#include "store/account_store.hpp"
#include "store/upload_parts.hpp"

#include <cstddef>

namespace simsync::testing {

/// `req` as store::upload_plan cuts it, sent a part at a time, until the
/// last or one held for confirmation. The parts' results added up, or the
/// first error; `calls` (if given) counts the calls made.
inline caf::expected<store::upload_result> upload_in_parts(store::account_store& s,
                                                           store::upload_request req,
                                                           store::part_sizes sizes = {},
                                                           std::size_t* calls = nullptr) {
  store::upload_plan plan(std::move(req), sizes);
  while (auto part = plan.next(1)) {
    if (calls)
      ++*calls;
    auto r = s.upload(*part);
    if (!r)
      return r;
    plan.answered(*r);
  }
  return plan.sum();
}

} // namespace simsync::testing
