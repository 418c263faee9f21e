#include "net/terminal_gateway.hpp"

#include "net/exchange.hpp"
#include "net/routes.hpp"

#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <cctype>
#include <thread>

namespace simsync::net {

namespace {

using router_t = restinio::router::express_router_t<>;

struct gateway_traits : restinio::default_traits_t {
  using request_handler_t = router_t;
};

using server_handle = restinio::running_server_handle_t<gateway_traits>;

using route_fn = std::function<void(const exchange_ptr&)>;

/// Percent-decodes a path parameter: a phone may send "+86..." as "%2B86...".
/// '+' stays '+' (it means space only in a query string).
std::string decode_param(restinio::string_view_t raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    auto hex = [&](std::size_t at) {
      return std::isxdigit(static_cast<unsigned char>(raw[at])) != 0;
    };
    if (raw[i] == '%' && i + 2 < raw.size() && hex(i + 1) && hex(i + 2)) {
      out += static_cast<char>(std::stoi(std::string(raw.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += raw[i];
    }
  }
  return out;
}

/// Answers on RESTinio's thread, without an actor: for refusals that need
/// no shard (overload, no such route, wrong method).
void answer_now(const restinio::request_handle_t& req, const problem& p,
                std::vector<std::pair<std::string, std::string>> headers = {}) {
  auto response = begin_response(req, p.status);
  response.append_header(restinio::http_field::content_type, "application/problem+json");
  if (p.status == 503)
    response.append_header("Retry-After", "1");
  for (auto& [name, value] : headers)
    response.append_header(name, value);
  response.set_body(p.body()).done();
}

/// The RESTinio side of every route: shed load when too much is in flight,
/// otherwise spawn the request's actor and return without waiting for it.
restinio::request_handling_status_t
dispatch(const context_ptr& ctx, restinio::request_handle_t req, std::string_view name,
         std::vector<std::string> params, route_fn route) {
  if (!ctx->meter->admit(ctx->limits.max_in_flight)) {
    answer_now(req, problem{503, "overloaded", "The gateway is overloaded",
                            "too many requests in flight; retry after a second"});
    return restinio::request_accepted();
  }
  ctx->sys.spawn([ctx, req, name, params = std::move(params),
                  route = std::move(route)](caf::event_based_actor* self) {
    auto ex = std::make_shared<exchange>(ctx, req, self, name, params);
    try {
      if (ex->decode_body())
        route(ex);
    } catch (const std::exception& e) {
      ex->fail(problem{500, "internal", "Internal error", e.what()});
    }
  });
  return restinio::request_accepted();
}

/// One route of the terminal API. The table below is the only list of
/// routes: the router and each path's Allow header are both made from it.
struct route_spec {
  restinio::http_method_id_t method;
  const char* path;      ///< RESTinio express pattern
  std::string_view name; ///< the route in the metrics
  route_fn handle;
};

std::vector<route_spec> routes() {
  using namespace restinio;
  auto upload = [](store::upload_mode mode) {
    return [mode](const exchange_ptr& ex) { handle_upload(ex, mode); };
  };
  return {
      {http_method_post(), "/v1/register", "POST /v1/register", handle_register},
      {http_method_get(), "/v1/lines/:msisdn/contacts", "GET /v1/lines/{msisdn}/contacts",
       handle_read_contacts},
      {http_method_put(), "/v1/lines/:msisdn/contacts", "PUT /v1/lines/{msisdn}/contacts",
       upload(store::upload_mode::snapshot)},
      {http_method_post(), "/v1/lines/:msisdn/contacts",
       "POST /v1/lines/{msisdn}/contacts", upload(store::upload_mode::delta)},
      {http_method_delete(), "/v1/lines/:msisdn/contacts/:uid",
       "DELETE /v1/lines/{msisdn}/contacts/{uid}", handle_delete_card},
      {http_method_post(), "/v1/lines/:msisdn/update", "POST /v1/lines/{msisdn}/update",
       handle_update},
      {http_method_get(), "/v1/lines/:msisdn/pending", "GET /v1/lines/{msisdn}/pending",
       handle_pending},
      {http_method_post(), "/v1/lines/:msisdn/pending/ack",
       "POST /v1/lines/{msisdn}/pending/ack", handle_ack},
      {http_method_get(), "/v1/lines/:msisdn/history", "GET /v1/lines/{msisdn}/history",
       handle_history},
      {http_method_post(), "/v1/lines/:msisdn/restore", "POST /v1/lines/{msisdn}/restore",
       handle_restore},
      {http_method_delete(), "/v1/lines/:msisdn", "DELETE /v1/lines/{msisdn}",
       handle_delete_line},
  };
}

std::unique_ptr<router_t> make_router(const context_ptr& ctx) {
  auto router = std::make_unique<router_t>();
  auto table = routes();
  for (auto& r : table)
    router->add_handler(
        r.method, r.path,
        [ctx, name = r.name, handle = r.handle](restinio::request_handle_t req,
                                                restinio::router::route_params_t p) {
          std::vector<std::string> params;
          for (const char* key : {"msisdn", "uid"})
            if (p.has(key))
              params.push_back(decode_param(p[key]));
          return dispatch(ctx, std::move(req), name, std::move(params), handle);
        });
  // A known path asked with another method: 405 naming the methods it has.
  std::vector<std::string> paths;
  for (const auto& r : table)
    if (std::find(paths.begin(), paths.end(), r.path) == paths.end())
      paths.emplace_back(r.path);
  for (const auto& path : paths) {
    restinio::router::dynamic_none_of_methods_matcher_t others;
    std::string allow;
    for (const auto& r : table)
      if (r.path == path) {
        others.add(r.method);
        allow += (allow.empty() ? "" : ", ") + std::string(r.method.c_str());
      }
    router->add_handler(
        std::move(others), path,
        [allow](restinio::request_handle_t req, restinio::router::route_params_t) {
          answer_now(req,
                     problem{405, "method-not-allowed", "The method is not allowed here",
                             std::string(req->header().method().c_str()) + " " +
                                 std::string(req->header().path()) +
                                 "; allowed: " + allow},
                     {{"Allow", allow}});
          return restinio::request_accepted();
        });
  }
  router->non_matched_request_handler([](restinio::request_handle_t req) {
    answer_now(req, problem{404, "not-found", "No such resource",
                            std::string(req->header().method().c_str()) + " " +
                                std::string(req->header().path())});
    return restinio::request_accepted();
  });
  return router;
}

} // namespace

struct terminal_gateway::impl {
  context_ptr ctx;
  server_handle server;
  bool stopped = false;
};

terminal_gateway::terminal_gateway(std::unique_ptr<impl> self) : impl_(std::move(self)) {}

terminal_gateway::~terminal_gateway() {
  stop();
}

caf::expected<std::unique_ptr<terminal_gateway>>
terminal_gateway::start(caf::actor_system& sys, const config::node_config& cfg,
                        federation_actor federation, gateway_limits limits,
                        std::shared_ptr<metrics::request_meter> meter) {
  if (!meter)
    meter = std::make_shared<metrics::request_meter>(cfg.metrics);
  auto self = std::make_unique<impl>();
  self->ctx = std::make_shared<gateway_context>(sys, cfg, federation, limits, meter);
  // Learn the shards the node knows now; the rest are asked for when needed.
  caf::scoped_actor blocking{sys};
  blocking->request(federation, limits.actor_timeout, atom::shards_v)
      .receive([&](const node_shards& known) { self->ctx->shards.update(known); },
               [](const caf::error&) {});
  try {
    self->server = restinio::run_async<gateway_traits>(
        restinio::own_io_context(),
        restinio::server_settings_t<gateway_traits>{}
            .address(cfg.gateway.host)
            .port(static_cast<std::uint16_t>(cfg.gateway.port))
            .request_handler(make_router(self->ctx))
            .handle_request_timeout(limits.http_timeout)
            .incoming_http_msg_limits(
                restinio::incoming_http_msg_limits_t{}.max_body_size(
                    limits.hard_body_bytes)),
        1);
  } catch (const std::exception& e) {
    return caf::make_error(caf::sec::cannot_open_port, "gateway cannot listen on " +
                                                           cfg.gateway.to_string() +
                                                           ": " + e.what());
  }
  return std::unique_ptr<terminal_gateway>{new terminal_gateway(std::move(self))};
}

bool terminal_gateway::stop(std::chrono::milliseconds limit) {
  if (!impl_ || impl_->stopped)
    return true;
  impl_->stopped = true;
  impl_->server->stop();
  impl_->server->wait();
  // Request actors may still answer; the server object (and its I/O context,
  // which their responses are posted to) lives on until they have.
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (impl_->ctx->meter->in_flight() > 0) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  return true;
}

} // namespace simsync::net
