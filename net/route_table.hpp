#pragma once

// How an HTTP port of carrierd (the terminal API, the admin port) turns a
// table of routes into a RESTinio router: each request becomes an exchange
// on the server's I/O loop (net/exchange.hpp), which writes the node's own
// accounts itself or asks an actor; a known path
// asked with another method gets 405 with Allow; anything else 404. Load
// beyond the context's max_in_flight is shed with 503 at once.

#include "net/exchange.hpp"

#include <restinio/all.hpp>

#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace simsync::net {

using route_fn = std::function<void(const exchange_ptr&)>;

/// One route. A port's table is its only list of routes: the router and
/// each path's Allow header are both made from it.
struct route_spec {
  restinio::http_method_id_t method;
  const char* path; ///< RESTinio express pattern; parameters :msisdn, :uid, :peer, :id
  std::string_view name; ///< the route in the metrics
  route_fn handle;
};

using router_t = restinio::router::express_router_t<>;

/// A router for `table`. Routes answered without an actor (plain RESTinio
/// handlers) may be added to it before it is given to the server.
std::unique_ptr<router_t> make_router(const context_ptr& ctx,
                                      const std::vector<route_spec>& table);

/// Answers on RESTinio's thread, without an actor: for refusals that need
/// no shard (overload, no such route, wrong method).
void answer_now(const restinio::request_handle_t& req, const problem& p);

} // namespace simsync::net
