#pragma once

// The handlers of the terminal API (docs/openapi.json). Each runs in the request's
// actor and answers through the exchange; path parameters are param(0) =
// msisdn and param(1) = uid where the route has them.

#include "net/exchange.hpp"
#include "store/account_store.hpp"

namespace simsync::net {

/// POST /v1/register {"msisdn","iccid"}: sends a one-time code by SMS (202).
void handle_register(const exchange_ptr& ex);
/// POST /v1/register/verify {"msisdn","code"}: registers the line, issues its token.
void handle_verify(const exchange_ptr& ex);
/// PUT (snapshot) and POST (delta) /v1/lines/{msisdn}/contacts?scope=
/// (PUT ...&empty=true with a blank body: the book emptied on purpose)
void handle_upload(const exchange_ptr& ex, store::upload_mode mode);
/// DELETE /v1/lines/{msisdn}/contacts/{uid}?scope=
void handle_delete_card(const exchange_ptr& ex);
/// GET /v1/lines/{msisdn}/contacts?scope=&version=
void handle_read_contacts(const exchange_ptr& ex);
/// POST /v1/lines/{msisdn}/update
void handle_update(const exchange_ptr& ex);
/// GET /v1/lines/{msisdn}/pending?version=
void handle_pending(const exchange_ptr& ex);
/// POST /v1/lines/{msisdn}/pending/ack
void handle_ack(const exchange_ptr& ex);
/// GET /v1/lines/{msisdn}/history?scope=&limit=&next=
void handle_history(const exchange_ptr& ex);
/// POST /v1/lines/{msisdn}/restore {"at","scope","preview"}
void handle_restore(const exchange_ptr& ex);
/// DELETE /v1/lines/{msisdn}: removes the line (and the account with its last line).
void handle_delete_line(const exchange_ptr& ex);

} // namespace simsync::net
