#pragma once

// A peer carrier's dead letters on the admin port, behind the admin
// credential (a letter may hold contact data): what came and why it was not
// applied, dropping one once the operator has dealt with it, and retrying one
// whose cause is gone (a sender's clock that ran ahead, a limit raised).

#include "net/exchange.hpp"

namespace simsync::net {

/// GET /admin/dead-letters/{peer}?limit=N (net/kept_stream_admin.hpp)
void handle_list_dead_letters(const exchange_ptr& ex);
/// DELETE /admin/dead-letters/{peer}/{id}
void handle_drop_dead_letter(const exchange_ptr& ex);
/// POST /admin/dead-letters/{peer}/{id}/retry: checks the entry again as if
/// it had just arrived; if it passes, applies it and drops the letter (200),
/// else answers 409 still-refused with the reason and keeps it.
void handle_retry_dead_letter(const exchange_ptr& ex);

} // namespace simsync::net
