#pragma once

#include "net/exchange.hpp"

namespace simsync::net {

/// Whether the request carries the admin credential (`Authorization: Bearer
/// <[admin] key_file>`, compared as SHA-256 digests in constant time); false
/// after answering 403 (no key configured) or 401.
bool admin_authorized(const exchange_ptr& ex);

} // namespace simsync::net
