#include "net/terminal_gateway.hpp"

#include "net/exchange.hpp"
#include "net/routes.hpp"

#include <caf/scoped_actor.hpp>

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

void answer_now(const restinio::request_handle_t& req, int status, const problem& p,
                const char* reason) {
  auto response = req->create_response(restinio::http_status_line_t{
      restinio::http_status_code_t{static_cast<std::uint16_t>(status)}, reason});
  response.append_header(restinio::http_field::content_type, "application/problem+json");
  if (status == 503)
    response.append_header("Retry-After", "1");
  response.set_body(p.body()).done();
}

/// The RESTinio side of every route: shed load when too much is in flight,
/// otherwise spawn the request's actor and return without waiting for it.
restinio::request_handling_status_t
dispatch(const context_ptr& ctx, restinio::request_handle_t req, std::string_view name,
         std::vector<std::string> params, route_fn route) {
  if (!ctx->meter->admit(ctx->limits.max_in_flight)) {
    answer_now(req, 503,
               problem{503, "overloaded", "The gateway is overloaded",
                       "too many requests in flight; retry after a second"},
               "Service Unavailable");
    return restinio::request_accepted();
  }
  ctx->sys.spawn([ctx, req, name, params = std::move(params),
                  route = std::move(route)](caf::event_based_actor* self) {
    auto ex = std::make_shared<exchange>(ctx, req, self, name, params);
    try {
      route(ex);
    } catch (const std::exception& e) {
      ex->fail(problem{500, "internal", "Internal error", e.what()});
    }
  });
  return restinio::request_accepted();
}

std::unique_ptr<router_t> make_router(const context_ptr& ctx) {
  auto router = std::make_unique<router_t>();
  // Each route is named by its pattern in the metrics.
  auto route = [ctx](std::string_view name, route_fn handle) {
    return [ctx, name, handle](restinio::request_handle_t req,
                               restinio::router::route_params_t p) {
      std::vector<std::string> params;
      for (const char* key : {"msisdn", "uid"})
        if (p.has(key))
          params.push_back(decode_param(p[key]));
      return dispatch(ctx, std::move(req), name, std::move(params), handle);
    };
  };
  router->http_post("/v1/register", route("POST /v1/register", handle_register));
  router->http_put("/v1/lines/:msisdn/contacts",
                   route("PUT /v1/lines/{msisdn}/contacts", [](const exchange_ptr& ex) {
                     handle_upload(ex, store::upload_mode::snapshot);
                   }));
  router->http_post("/v1/lines/:msisdn/contacts",
                    route("POST /v1/lines/{msisdn}/contacts", [](const exchange_ptr& ex) {
                      handle_upload(ex, store::upload_mode::delta);
                    }));
  router->http_get("/v1/lines/:msisdn/contacts",
                   route("GET /v1/lines/{msisdn}/contacts", handle_read_contacts));
  router->http_delete(
      "/v1/lines/:msisdn/contacts/:uid",
      route("DELETE /v1/lines/{msisdn}/contacts/{uid}", handle_delete_card));
  router->http_post("/v1/lines/:msisdn/update",
                    route("POST /v1/lines/{msisdn}/update", handle_update));
  router->http_get("/v1/lines/:msisdn/pending",
                   route("GET /v1/lines/{msisdn}/pending", handle_pending));
  router->http_post("/v1/lines/:msisdn/pending/ack",
                    route("POST /v1/lines/{msisdn}/pending/ack", handle_ack));
  router->http_get("/v1/lines/:msisdn/history",
                   route("GET /v1/lines/{msisdn}/history", handle_history));
  router->http_post("/v1/lines/:msisdn/restore",
                    route("POST /v1/lines/{msisdn}/restore", handle_restore));
  router->http_delete("/v1/lines/:msisdn",
                      route("DELETE /v1/lines/{msisdn}", handle_delete_line));
  router->non_matched_request_handler([](restinio::request_handle_t req) {
    answer_now(req, 404,
               problem{404, "not-found", "No such resource",
                       std::string(req->header().method().c_str()) + " " +
                           std::string(req->header().path())},
               "Not Found");
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
