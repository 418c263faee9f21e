#include "net/terminal_gateway.hpp"

#include "net/exchange.hpp"
#include "net/route_table.hpp"
#include "net/routes.hpp"

#include <caf/scoped_actor.hpp>

namespace simsync::net {

namespace {

struct gateway_traits : restinio::default_traits_t {
  using request_handler_t = router_t;
};

using server_handle = restinio::running_server_handle_t<gateway_traits>;

std::vector<route_spec> routes() {
  using namespace restinio;
  auto upload = [](store::upload_mode mode) {
    return [mode](const exchange_ptr& ex) { handle_upload(ex, mode); };
  };
  return {
      {http_method_post(), "/v1/register", "POST /v1/register", handle_register},
      {http_method_post(), "/v1/register/verify", "POST /v1/register/verify",
       handle_verify},
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

} // namespace

std::vector<std::string> terminal_route_names() {
  std::vector<std::string> names;
  for (const auto& r : routes())
    names.emplace_back(r.name);
  return names;
}

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
                        const running_node& node, gateway_limits limits,
                        std::shared_ptr<metrics::request_meter> meter) {
  if (!meter)
    meter = std::make_shared<metrics::request_meter>(cfg.metrics);
  auto self = std::make_unique<impl>();
  auto router = node.router;
  self->ctx =
      std::make_shared<gateway_context>(sys, cfg, router, node.keys, limits, meter);
  local_store::settings local;
  local.redis = node.redis_at;
  local.carrier = cfg.carrier;
  local.keys = node.keys;
  local.backlog = node.backlog;
  local.max_lag = node.max_replication_lag;
  local.history = node.history;
  local.shards = cfg.owned_shards();
  local.limit = limits.actor_timeout;
  local.meter = meter;
  self->ctx->local = std::make_unique<local_store>(*self->ctx->loop, std::move(local));
  // Learn the shards the node knows now; the rest are asked for when needed.
  caf::scoped_actor blocking{sys};
  blocking->request(router, limits.actor_timeout, atom::shards_v)
      .receive([&](const node_shards& known) { self->ctx->shards.update(known); },
               [](const caf::error&) {});
  try {
    self->server = restinio::run_async<gateway_traits>(
        restinio::external_io_context(*self->ctx->loop),
        restinio::server_settings_t<gateway_traits>{}
            .address(cfg.gateway.host)
            .port(static_cast<std::uint16_t>(cfg.gateway.port))
            .request_handler(make_router(self->ctx, routes()))
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
  return finish_in_flight(*impl_->ctx, limit);
}

} // namespace simsync::net
