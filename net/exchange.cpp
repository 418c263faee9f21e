#include "net/exchange.hpp"

#include "core/error.hpp"
#include "logging/log.hpp"
#include "logging/throttle.hpp"
#include "net/auth.hpp"
#include "net/content_coding.hpp"
#include "net/http_date.hpp"
#include "net/http_status.hpp"
#include "net/instant.hpp"

#include <cstdlib>
#include <optional>

namespace simsync::net {

namespace {

/// The instant a restore asked for is older than the history kept: say how
/// far back it reaches, in the form the request used.
problem beyond_history(const caf::error& err) {
  problem p{422, "beyond-history", "The history does not reach back that far",
            "the history of this book is kept for a limited time and number of changes"};
  const auto& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0)) {
    auto from = std::stoull(ctx.get_as<std::string>(0));
    p.detail = "the history of this book reaches back to " + rfc3339_of(from);
    p.extra["earliest"] = rfc3339_of(from);
  }
  return p;
}

/// The error's context element `at` as a number (retry-after ms, attempts
/// left), 0 if none.
std::uint64_t context_number(const caf::error& err, std::size_t at = 0) {
  const auto& ctx = err.context();
  if (ctx.size() <= at || !ctx.match_element<std::string>(at))
    return 0;
  return std::strtoull(ctx.get_as<std::string>(at).c_str(), nullptr, 10);
}

/// A registration refusal: says what the phone can do next and nothing
/// else (not whether the number has a line, nor which check failed).
std::optional<problem> registration_problem(const caf::error& err) {
  switch (static_cast<ec>(err.code())) {
  case ec::not_eligible:
    return problem{403, "not-eligible", "This SIM cannot register here",
                   "the number must be an active subscription of this carrier, sent "
                   "with the ICCID of its SIM"};
  case ec::too_many_codes:
    return too_many("too-many-codes", "Too many codes were sent to this number",
                    "wait before asking for another code", context_number(err));
  case ec::no_code:
    return problem{403, "invalid-code", "The code is not valid",
                   "no code is waiting for this number; ask for one with POST "
                   "/v1/register"};
  case ec::wrong_code: {
    problem p{403, "invalid-code", "The code is not valid", "the code is wrong"};
    p.extra["attempts_left"] = context_number(err);
    return p;
  }
  case ec::code_expired:
    return problem{410, "code-expired", "The code has expired",
                   "ask for a new code with POST /v1/register"};
  case ec::too_many_attempts:
    return too_many("too-many-attempts", "Too many wrong codes",
                    "this code is void; ask for a new one with POST /v1/register",
                    context_number(err));
  default:
    return std::nullopt;
  }
}

/// The problem a phone sees for an actor's error. Server-side failures get a
/// fixed text: a phone never sees a Redis address, an internal error's
/// wording or another account's idcode.
problem problem_of(const caf::error& err) {
  auto detail = describe(err);
  if (err.category() == caf::atom("simsync")) {
    if (auto p = registration_problem(err))
      return *p;
    switch (static_cast<ec>(err.code())) {
    case ec::unknown_line:
      return {404, "unknown-line", "The line is not registered",
              "the number has no line at this carrier"};
    case ec::line_taken:
      return {409, "line-taken", "The line belongs to another account",
              "the number is registered to another person's account"};
    case ec::stale_cursor:
      return {409, "stale-cursor", "The cursor is not the last one fetched", detail};
    case ec::invalid_request:
      return {400, "invalid-request", "The request is invalid", detail};
    case ec::store_unavailable:
      return {503, "store-unavailable", "The store is unavailable",
              "the carrier's store did not answer; retry shortly"};
    case ec::replication_behind: // its context: the reason, then the wait in ms
      return retry_after({503, "replication-behind",
                          "Replication to a peer carrier is behind",
                          "shared changes are paused while replication catches up; retry "
                          "later (Retry-After)"},
                         context_number(err, 1));
    case ec::beyond_history:
      return beyond_history(err);
    default:
      break;
    }
  } else if (err == caf::sec::request_timeout) {
    return {504, "timeout", "The account's shard did not answer in time",
            "retry shortly"};
  } else if (err == caf::sec::request_receiver_down) {
    return {503, "shard-unavailable", "The account's shard is not reachable",
            "retry shortly"};
  }
  return {500, "internal", "Internal error", "the carrier could not handle the request"};
}

} // namespace

restinio::response_builder_t<restinio::restinio_controlled_output_t>
begin_response(const restinio::request_handle_t& req, int status) {
  auto response = req->create_response(restinio::http_status_line_t{
      restinio::http_status_code_t{static_cast<std::uint16_t>(status)},
      reason_phrase(status)});
  response.append_header(restinio::http_field::date, http_date_now());
  return response;
}

gateway_context::gateway_context(caf::actor_system& sys, const config::node_config& cfg,
                                 router_actor router,
                                 std::shared_ptr<core::shared_keyring> keys,
                                 gateway_limits limits,
                                 std::shared_ptr<metrics::request_meter> meter)
    : sys(sys), router(std::move(router)), shards(sys, cfg.shards),
      shard_count(cfg.shards), federation_key(cfg.federation_key), keys(std::move(keys)),
      peers(cfg.peer_ids()), limits(limits),
      mass_deletion{static_cast<std::uint32_t>(cfg.mass_deletion_min_cards),
                    static_cast<std::uint32_t>(cfg.mass_deletion_percent)},
      meter(std::move(meter)), registration(cfg.registration),
      sms(make_sms_gateway(cfg.sms, cfg.data_dir)),
      sms_time_limit(cfg.sms.attempts * (cfg.sms.timeout + std::chrono::seconds{1}) +
                     std::chrono::seconds{2}),
      register_limiter(std::make_shared<address_limiter>(
          cfg.registration.requests_per_address, cfg.registration.address_window)),
      verify_limiter(std::make_shared<address_limiter>(
          cfg.registration.requests_per_address, cfg.registration.address_window)),
      admin_key(cfg.admin_key),
      operator_stream_shard(cfg.operator_stream_shard()), incoming{entry_limits_of(cfg)} {
}

bool finish_in_flight(gateway_context& ctx, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (ctx.meter->in_flight() > 0 && std::chrono::steady_clock::now() < deadline) {
    ctx.loop->restart();
    ctx.loop->run_for(std::chrono::milliseconds{10});
  }
  bool answered = ctx.meter->in_flight() == 0;
  ctx.local.reset(); // on this thread: the loop runs no more
  return answered;
}

exchange::exchange(context_ptr ctx, restinio::request_handle_t req,
                   std::string_view route, std::vector<std::string> params)
    : ctx_(std::move(ctx)), req_(std::move(req)), route_(route),
      params_(std::move(params)) {}

exchange::~exchange() {
  if (!answered_)
    fail(problem{500, "internal", "Internal error", "the request was left unanswered"});
}

bool exchange::decode_body() {
  // Repeated headers are one list (RFC 9110 §5.3): a body coded twice is refused.
  std::string coding;
  req_->header().for_each_value_of(
      restinio::http_field::content_encoding, [&](restinio::string_view_t value) {
        coding += (coding.empty() ? "" : ", ") + std::string(value.data(), value.size());
        return restinio::http_header_fields_t::continue_enumeration();
      });
  auto decoded = decode_content(coding, req_->body(), ctx_->limits.max_body_bytes);
  if (decoded.error) {
    fail(*decoded.error);
    return false;
  }
  decoded_ = decoded.decoded;
  decoded_body_ = std::move(decoded.bytes);
  return true;
}

void exchange::reply(int status, const std::string& content_type, std::string body,
                     std::vector<std::pair<std::string, std::string>> headers) {
  if (answered_)
    return;
  answered_ = true;
  auto response = begin_response(req_, status);
  response.append_header(restinio::http_field::content_type, content_type);
  for (auto& [name, value] : headers)
    response.append_header(name, value);
  if (body.size() >= compress_from_bytes) {
    // Whether this answer is compressed depends on Accept-Encoding: caches must know.
    response.append_header(restinio::http_field::vary, "Accept-Encoding");
    if (accepts_gzip(
            req_->header().get_field_or(restinio::http_field::accept_encoding, ""))) {
      if (auto compressed = gzip(body); !compressed.empty()) {
        response.append_header(restinio::http_field::content_encoding, "gzip");
        body = std::move(compressed);
      }
    }
  }
  response.set_body(std::move(body)).done();
  ctx_->meter->answered(route_, status, std::chrono::steady_clock::now() - started_);
}

void exchange::reply_json(int status, const nlohmann::json& body) {
  reply(status, "application/json",
        body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void exchange::fail(const problem& p) {
  if (p.status == 429) {
    // A limit on registration (per address, codes per number, attempts):
    // who keeps hitting it is what an operator looks for in an attack.
    static logging::throttle limited;
    if (auto left_out = limited.admit())
      logging::warn("registration_limited",
                    {{"route", route_},
                     {"problem", p.slug},
                     {"address", req_->remote_endpoint().address().to_string()},
                     {"not_logged_since", *left_out}});
  }
  reply(p.status, "application/problem+json", p.body(), p.answer_headers());
}

void exchange::fail(const caf::error& err) {
  // The store refused the token: which answer depends on what it opens.
  if (err == ec::bad_token && !token_.empty())
    return refuse_token(shared_from_this());
  if (err == ec::replication_behind)
    ctx_->shedding.shed(metrics::shed_reason::replication_behind);
  auto p = problem_of(err);
  // The phone gets a fixed text; the operator gets what happened.
  if (p.status >= 500) {
    static logging::throttle failing;
    if (auto left_out = failing.admit())
      logging::warn("request_failed", {{"route", route_},
                                       {"status", p.status},
                                       {"reason", describe(err)},
                                       {"not_logged_since", *left_out}});
  }
  fail(p);
}

void exchange::run_blocking(std::function<std::string()> work,
                            std::chrono::milliseconds limit,
                            std::function<void(const std::string&)> on_done) {
  auto worker = ctx_->sys.spawn<caf::detached>(
      [work = std::move(work)](caf::event_based_actor* self) -> caf::behavior {
        return {[self, work](atom::run) {
          self->quit();
          return work();
        }};
      });
  ask_actor(
      worker, limit,
      [on_done = std::move(on_done)](const std::string& result) { on_done(result); },
      failing(), atom::run_v);
}

void exchange::with_shards(const std::vector<int>& indices, std::function<void()> next) {
  auto missing = [ex = shared_from_this(), indices]() -> std::optional<int> {
    for (int index : indices)
      if (!ex->ctx_->shards.find(index))
        return index;
    return std::nullopt;
  };
  if (!missing())
    return next();
  refresh([ex = shared_from_this(), missing, next] {
    if (auto index = missing())
      return ex->fail(problem{503, "shard-unavailable", "A shard is not reachable yet",
                              "shard " + std::to_string(*index) +
                                  " is not known to this node yet; nothing was written"});
    next();
  });
}

void exchange::refresh(std::function<void()> next) {
  ask_actor(
      ctx_->router, ctx_->limits.actor_timeout,
      [ex = shared_from_this(), next](const node_shards& known) {
        ex->ctx_->shards.update(known);
        next();
      },
      failing(), atom::shards_v);
}

} // namespace simsync::net
