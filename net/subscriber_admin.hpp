#pragma once

// The subscriber registry's admin API on the admin port: the carrier's
// systems (BSS) say which person and SIM each msisdn belongs to. Every route
// needs the admin bearer credential ([admin] key_file). Name and ID number
// are normalized, turned into the person's idcode and sealed here; they are
// never stored in the clear nor sent to another carrier.

#include "net/exchange.hpp"

namespace simsync::net {

/// PUT /admin/subscribers/{msisdn} {"iccid","name","id_number","active"}
void handle_put_subscriber(const exchange_ptr& ex);
/// DELETE /admin/subscribers/{msisdn}
void handle_delete_subscriber(const exchange_ptr& ex);
/// POST /admin/subscribers: NDJSON or CSV, all records or none.
void handle_import_subscribers(const exchange_ptr& ex);

} // namespace simsync::net
