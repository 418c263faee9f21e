#pragma once

// The outbox entries set aside for a peer (store/set_aside.hpp), on the admin
// port behind the admin credential: what was set aside, for which account and
// why, and dropping one once the operator has found why its cards were
// damaged (which ends the SimsyncOutboxSetAside alert once none is left).
// No card or record is shown: the listing says which and how many.

#include "net/exchange.hpp"

namespace simsync::net {

/// GET /admin/set-aside/{peer}?limit=N (net/kept_stream_admin.hpp)
void handle_list_set_aside(const exchange_ptr& ex);
/// DELETE /admin/set-aside/{peer}/{id}
void handle_drop_set_aside(const exchange_ptr& ex);

} // namespace simsync::net
