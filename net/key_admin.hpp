#pragma once

// Rotating the carrier's seal keys on the admin port, behind the admin
// credential: the node reads its keyring file again, starts a re-seal pass
// over its Redis, and says where both stand. Never a key's bytes: ids only.
// The operator's procedure is in config/examples/README.md.

#include "net/exchange.hpp"

namespace simsync::net {

/// GET /admin/keys: the ring's key ids and writer, and the re-seal passes.
void handle_key_status(const exchange_ptr& ex);
/// POST /admin/keys/reload: reads the keyring file again (400 if it does not
/// parse; the node keeps its keys).
void handle_key_reload(const exchange_ptr& ex);
/// POST /admin/keys/reseal: starts a re-seal pass (202), unless one runs.
void handle_key_reseal(const exchange_ptr& ex);

} // namespace simsync::net
