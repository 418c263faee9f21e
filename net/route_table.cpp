#include "net/route_table.hpp"

#include "logging/log.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace simsync::net {

namespace {

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

/// The RESTinio side of every route: shed load when too much is in flight,
/// otherwise start the request's exchange, which answers when its work is done.
restinio::request_handling_status_t
dispatch(const context_ptr& ctx, restinio::request_handle_t req, std::string_view name,
         std::vector<std::string> params, route_fn route) {
  if (!ctx->shedding.admit(ctx->limits.max_in_flight)) {
    answer_now(req, problem{503, "overloaded", "The gateway is overloaded",
                            "too many requests in flight; retry after a second"});
    return restinio::request_accepted();
  }
  auto ex = std::make_shared<exchange>(ctx, std::move(req), name, std::move(params));
  try {
    if (ex->decode_body())
      route(ex);
  } catch (const std::exception& e) {
    logging::error("request_threw", {{"route", name}, {"reason", e.what()}});
    ex->fail(problem{500, "internal", "Internal error",
                     "the carrier could not handle the request"});
  }
  return restinio::request_accepted();
}

} // namespace

void answer_now(const restinio::request_handle_t& req, const problem& p) {
  auto response = begin_response(req, p.status);
  response.append_header(restinio::http_field::content_type, "application/problem+json");
  for (const auto& [name, value] : p.answer_headers())
    response.append_header(name, value);
  response.set_body(p.body()).done();
}

std::unique_ptr<router_t> make_router(const context_ptr& ctx,
                                      const std::vector<route_spec>& table) {
  auto router = std::make_unique<router_t>();
  for (const auto& r : table)
    router->add_handler(
        r.method, r.path,
        [ctx, name = r.name, handle = r.handle](restinio::request_handle_t req,
                                                restinio::router::route_params_t p) {
          std::vector<std::string> params;
          for (const char* key : {"msisdn", "uid", "peer", "id"})
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
          problem p{405, "method-not-allowed", "The method is not allowed here",
                    std::string(req->header().method().c_str()) + " " +
                        std::string(req->header().path()) + "; allowed: " + allow};
          p.headers.emplace_back("Allow", allow);
          answer_now(req, p);
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

} // namespace simsync::net
