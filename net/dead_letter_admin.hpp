#pragma once

// A peer carrier's dead letters on the admin port, behind the admin
// credential (a letter may hold contact data): what came and why it was not
// applied, and dropping one once the operator has dealt with it.

#include "net/exchange.hpp"

namespace simsync::net {

/// GET /admin/dead-letters/{peer}?limit=N (default 100, at most 10000)
void handle_list_dead_letters(const exchange_ptr& ex);
/// DELETE /admin/dead-letters/{peer}/{id}
void handle_drop_dead_letter(const exchange_ptr& ex);

} // namespace simsync::net
