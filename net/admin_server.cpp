#include "net/admin_server.hpp"

#include "metrics/prometheus_text.hpp"
#include "net/dead_letter_admin.hpp"
#include "net/health.hpp"
#include "net/http_date.hpp"
#include "net/key_admin.hpp"
#include "net/problem.hpp"
#include "net/route_table.hpp"
#include "net/set_aside_admin.hpp"
#include "net/subscriber_admin.hpp"

#include <caf/sec.hpp>
#include <restinio/all.hpp>

namespace simsync::net {

namespace {

struct admin_traits : restinio::default_traits_t {
  using request_handler_t = router_t;
};

using board_ptr = std::shared_ptr<metrics::snapshot_board>;

restinio::request_handling_status_t answer(const restinio::request_handle_t& req,
                                           restinio::http_status_line_t status,
                                           const char* content_type, std::string body) {
  req->create_response(std::move(status))
      .append_header(restinio::http_field::content_type, content_type)
      .append_header(restinio::http_field::cache_control, "no-store")
      .append_header(restinio::http_field::date, http_date_now())
      .set_body(std::move(body))
      .done();
  return restinio::request_accepted();
}

restinio::request_handling_status_t not_ready(const restinio::request_handle_t& req) {
  problem p{503, "not-ready", "No snapshot yet",
            "the node takes its first sample within a second of starting"};
  return answer(req, restinio::status_service_unavailable(), "application/problem+json",
                p.body());
}

std::vector<route_spec> subscriber_routes() {
  using namespace restinio;
  return {
      {http_method_put(), "/admin/subscribers/:msisdn", "PUT /admin/subscribers/{msisdn}",
       handle_put_subscriber},
      {http_method_delete(), "/admin/subscribers/:msisdn",
       "DELETE /admin/subscribers/{msisdn}", handle_delete_subscriber},
      {http_method_post(), "/admin/subscribers", "POST /admin/subscribers",
       handle_import_subscribers},
      {http_method_get(), "/admin/dead-letters/:peer", "GET /admin/dead-letters/{peer}",
       handle_list_dead_letters},
      {http_method_delete(), "/admin/dead-letters/:peer/:id",
       "DELETE /admin/dead-letters/{peer}/{id}", handle_drop_dead_letter},
      {http_method_post(), "/admin/dead-letters/:peer/:id/retry",
       "POST /admin/dead-letters/{peer}/{id}/retry", handle_retry_dead_letter},
      {http_method_get(), "/admin/set-aside/:peer", "GET /admin/set-aside/{peer}",
       handle_list_set_aside},
      {http_method_delete(), "/admin/set-aside/:peer/:id",
       "DELETE /admin/set-aside/{peer}/{id}", handle_drop_set_aside},
      {http_method_get(), "/admin/keys", "GET /admin/keys", handle_key_status},
      {http_method_post(), "/admin/keys/reload", "POST /admin/keys/reload",
       handle_key_reload},
      {http_method_post(), "/admin/keys/reseal", "POST /admin/keys/reseal",
       handle_key_reseal},
  };
}

std::unique_ptr<router_t>
make_admin_router(const context_ptr& ctx, const board_ptr& board, readiness_probe probe) {
  auto table = subscriber_routes();
  table.push_back(readiness_route(std::move(probe)));
  auto router = make_router(ctx, table);
  router->http_get("/", [](auto req, auto) {
    return answer(
        req, restinio::status_ok(), "application/json",
        R"({"routes":["/healthz","/readyz","/admin/actors","/metrics","/admin/subscribers","/admin/dead-letters","/admin/set-aside","/admin/keys"]})");
  });
  // Answered on the server's thread, asking nothing: the process is alive.
  router->http_get("/healthz", [](auto req, auto) {
    return answer(req, restinio::status_ok(), "application/json",
                  R"({"status":"alive"})");
  });
  if (!board)
    return router;
  router->http_get("/admin/actors", [board](auto req, auto) {
    auto snapshot = board->latest();
    if (!snapshot)
      return not_ready(req);
    return answer(req, restinio::status_ok(), "application/json",
                  metrics::to_json(*snapshot).dump());
  });
  router->http_get("/metrics", [board](auto req, auto) {
    auto snapshot = board->latest();
    if (!snapshot)
      return not_ready(req);
    return answer(req, restinio::status_ok(), "text/plain; version=0.0.4; charset=utf-8",
                  metrics::to_prometheus(*snapshot));
  });
  return router;
}

} // namespace

struct admin_server::impl {
  context_ptr ctx;
  restinio::running_server_handle_t<admin_traits> server;
  bool stopped = false;
};

admin_server::admin_server(std::unique_ptr<impl> self) : impl_(std::move(self)) {}

admin_server::~admin_server() {
  stop();
}

caf::expected<std::unique_ptr<admin_server>>
admin_server::start(caf::actor_system& sys, const config::node_config& cfg,
                    const running_node& node, board_ptr board) {
  auto self = std::make_unique<impl>();
  self->ctx = std::make_shared<gateway_context>(
      sys, cfg, node.router, node.keys, gateway_limits{},
      std::make_shared<metrics::request_meter>(false));
  self->ctx->rotation =
      std::make_shared<key_rotation>(sys, node.keys, cfg.keyring_file, node.redis_at);
  try {
    self->server = restinio::run_async<admin_traits>(
        restinio::external_io_context(*self->ctx->loop),
        restinio::server_settings_t<admin_traits>{}
            .address(cfg.admin.host)
            .port(static_cast<std::uint16_t>(cfg.admin.port))
            .request_handler(
                make_admin_router(self->ctx, board,
                                  readiness_probe{&sys, node.supervisor, node.redis_at,
                                                  cfg.owned_shards()}))
            // RESTinio's own limit (10 s) is shorter than a shard's: without
            // this a stalled store closed the connection instead of a 504.
            .handle_request_timeout(self->ctx->limits.http_timeout),
        1);
  } catch (const std::exception& e) {
    return caf::make_error(caf::sec::cannot_open_port, "admin port cannot listen on " +
                                                           cfg.admin.to_string() + ": " +
                                                           e.what());
  }
  return std::unique_ptr<admin_server>{new admin_server(std::move(self))};
}

void admin_server::stop() {
  if (!impl_ || impl_->stopped)
    return;
  impl_->stopped = true;
  impl_->ctx->rotation->stop();
  impl_->server->stop();
  impl_->server->wait();
  finish_in_flight(*impl_->ctx, std::chrono::seconds{10});
}

} // namespace simsync::net
