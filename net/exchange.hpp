#pragma once

// One HTTP request in flight and the RESTinio request it answers. Its
// handlers and every continuation run on the server's I/O loop, one at a
// time, and never block: an account of this node is written through the
// local store on that loop (net/local_store.hpp); anything asked of an actor
// (another node's shard, the router, a blocking job) is asked by a
// short-lived actor whose answer is posted back to the loop.

#include "actors/actors.hpp"
#include "actors/incoming_entries.hpp"
#include "actors/key_rotation.hpp"
#include "config/node_config.hpp"
#include "metrics/request_meter.hpp"
#include "net/address_limiter.hpp"
#include "net/limits.hpp"
#include "net/load_shedding.hpp"
#include "net/local_store.hpp"
#include "net/problem.hpp"
#include "net/shard_directory.hpp"
#include "net/sms_gateway.hpp"

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <caf/event_based_actor.hpp>
#include <restinio/all.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace simsync::net {

/// What every request of one gateway shares.
struct gateway_context {
  gateway_context(caf::actor_system& sys, const config::node_config& cfg,
                  router_actor router, std::shared_ptr<core::shared_keyring> keys,
                  gateway_limits limits, std::shared_ptr<metrics::request_meter> meter);

  caf::actor_system& sys;
  /// The server's I/O loop, where every exchange of this context runs. Kept
  /// by every actor that will post to it, so none posts to a loop destroyed.
  std::shared_ptr<asio::io_context> loop = std::make_shared<asio::io_context>();
  /// This node's shards, written from the loop (the terminal gateway's;
  /// null on the admin port, which asks the shard actors).
  std::unique_ptr<local_store> local;
  router_actor router;
  shard_directory shards;
  int shard_count;
  std::string federation_key;
  /// Seals user info and msisdns, hashes registration codes, msisdns and
  /// ICCIDs (core/line_id.hpp), and, through the shards, seals contact data;
  /// replaced when the carrier's keys rotate.
  std::shared_ptr<core::shared_keyring> keys;
  /// Reloads those keys and re-seals the node's Redis (the admin port's; null
  /// on the terminal gateway).
  std::shared_ptr<simsync::key_rotation> rotation;
  std::vector<std::string>
      peers; ///< every peer carrier: a new account asks each about the person
  gateway_limits limits;
  /// How much of a book a snapshot may remove unconfirmed ([gateway] mass_deletion_*).
  store::mass_deletion_guard mass_deletion;
  /// The per-route figures.
  std::shared_ptr<metrics::request_meter> meter;
  /// Admission: sheds load, counts it in `meter` and logs when it starts and stops.
  load_shedding shedding{meter};
  /// Registration: code lifetime and limits ([registration]).
  config::registration_settings registration;
  /// Where codes are sent ([sms]); null when the node has none.
  std::shared_ptr<sms_gateway> sms;
  /// How long sending one code may take: every attempt its timeout, plus
  /// the pauses between attempts.
  std::chrono::milliseconds sms_time_limit;
  /// Requests per client address to POST /v1/register and .../verify.
  std::shared_ptr<address_limiter> register_limiter;
  std::shared_ptr<address_limiter> verify_limiter;
  /// The admin port's bearer credential ([admin] key_file); empty: admin
  /// writes are refused.
  std::string admin_key;
  /// The shard through which the node's operator streams (the peers' dead
  /// letters, the outbox entries set aside: store/operator_streams.hpp) are
  /// read and dropped.
  int operator_stream_shard;
  /// What a peer's entry must satisfy ([federation] max_clock_skew_ms): a
  /// dead letter retried is checked again against it.
  entry_limits incoming;
};

using context_ptr = std::shared_ptr<gateway_context>;

/// After its server stopped (and with it the loop's thread): runs the loop
/// here until the requests in flight are answered or `limit` passes, then
/// closes the local store. Returns false if some were not answered.
bool finish_in_flight(gateway_context& ctx, std::chrono::milliseconds limit);

/// A response to `req` with its status line and the headers every answer
/// of the gateway carries (Date). Every answer starts here.
restinio::response_builder_t<restinio::restinio_controlled_output_t>
begin_response(const restinio::request_handle_t& req, int status);

class exchange : public std::enable_shared_from_this<exchange> {
public:
  /// `route` is the route's pattern (a string literal), for the metrics.
  exchange(context_ptr ctx, restinio::request_handle_t req, std::string_view route,
           std::vector<std::string> params);
  /// A request whose actor ended without answering gets a 500 rather than
  /// hanging its connection until RESTinio's timeout.
  ~exchange();

  const restinio::request_t& request() const { return *req_; }
  /// The request's body with its Content-Encoding undone (decode_body()).
  std::string_view body() const {
    return decoded_ ? std::string_view(decoded_body_) : std::string_view(req_->body());
  }
  /// Undoes the request's Content-Encoding, within limits().max_body_bytes;
  /// false after answering 400, 413 or 415. Runs before any handler.
  bool decode_body();
  /// The decoded path parameters, in route order.
  const std::string& param(std::size_t i) const { return params_.at(i); }
  gateway_context& ctx() { return *ctx_; }

  /// Answers once; later calls do nothing. A body of compress_from_bytes or
  /// more is gzip-compressed when the request's Accept-Encoding takes gzip.
  void reply(int status, const std::string& content_type, std::string body,
             std::vector<std::pair<std::string, std::string>> headers = {});
  void reply_json(int status, const nlohmann::json& body);
  void fail(const problem& p);
  /// An actor's error as a problem: simsync codes by kind, timeouts 504.
  void fail(const caf::error& err);

  /// Asks the shard that owns `idcode`; `on_ok` takes the reply. When the
  /// shard is not known yet, or its actor is gone (restarted), the directory
  /// is refreshed from the router and the request sent once more:
  /// a dead receiver never handled it, so resending is safe.
  template <class OnOk, class... Ts>
  void ask(const std::string& idcode, OnOk on_ok, Ts... xs) {
    ask_or(idcode, std::move(on_ok), failing(), std::move(xs)...);
  }

  /// ask, with `on_err` taking the shard's error instead of answering it.
  template <class OnOk, class OnErr, class... Ts>
  void ask_or(const std::string& idcode, OnOk on_ok, OnErr on_err, Ts... xs) {
    ask_shard(config::shard_of(idcode, ctx_->shard_count), true, std::move(on_ok),
              std::move(on_err), std::make_tuple(std::move(xs)...));
  }

  /// Asks shard `index` itself, whatever account it is for: the shard that
  /// holds a line's claim and subscriber record (config::shard_of_line).
  template <class OnOk, class... Ts> void ask_at(int index, OnOk on_ok, Ts... xs) {
    ask_shard(index, true, std::move(on_ok), failing(),
              std::make_tuple(std::move(xs)...));
  }

  /// Runs `next` once every shard in `indices` is known to this node
  /// (refreshing the directory once if need be); answers 503 otherwise. For
  /// writes that must reach several shards or none.
  void with_shards(const std::vector<int>& indices, std::function<void()> next);

  /// Why a shared write to `idcode` is refused now, when this node owns its
  /// shard and replication is too far behind (the write would be refused
  /// there the same way); none otherwise, and for another node's shard, which
  /// decides for itself.
  caf::error shared_write_refusal(const std::string& idcode) const {
    return ctx_->local && ctx_->local->owns(config::shard_of(idcode, ctx_->shard_count))
               ? ctx_->local->shared_write_refusal()
               : caf::error{};
  }

  /// The SIM token the request presented (authorize), for refuse_token.
  void presented_token(std::string token) { token_ = std::move(token); }
  const std::string& presented_token() const { return token_; }

  /// Runs `work` on a thread of its own (it may block, as an SMS gateway's
  /// answer does), then `on_done` with its result on the loop; answers 504
  /// if it takes longer than `limit`.
  void run_blocking(std::function<std::string()> work, std::chrono::milliseconds limit,
                    std::function<void(const std::string&)> on_done);

private:
  /// The error handler of a plain ask: the error is the answer.
  auto failing() {
    return [ex = shared_from_this()](caf::error& err) { ex->fail(err); };
  }

  template <class OnOk, class OnErr, class Args>
  void ask_shard(int index, bool may_refresh, OnOk on_ok, OnErr on_err, Args args) {
    if (ctx_->local && ctx_->local->owns(index)) {
      auto done = [on_ok, on_err](auto result) mutable {
        if (result)
          return on_ok(std::move(*result));
        caf::error err = std::move(result.error());
        on_err(err);
      };
      bool ran = std::apply(
          [&](const auto&... xs) { return run_locally(*ctx_->local, done, xs...); },
          args);
      if (ran)
        return;
    }
    auto shard = ctx_->shards.find(index);
    auto retry = [ex = shared_from_this(), index, on_ok, on_err, args]() mutable {
      ex->ask_shard(index, false, std::move(on_ok), std::move(on_err), std::move(args));
    };
    if (!shard) {
      if (may_refresh)
        refresh(std::move(retry));
      else
        fail(problem{503, "shard-unavailable", "The account's shard is not reachable",
                     "shard " + std::to_string(index) + " is not known to this node"});
      return;
    }
    auto on_failure = [ex = shared_from_this(), may_refresh, retry,
                       on_err](caf::error& err) mutable {
      if (may_refresh && err == caf::sec::request_receiver_down)
        ex->refresh(std::move(retry));
      else
        on_err(err);
    };
    std::apply(
        [&](auto&... xs) {
          ask_actor(shard, ctx_->limits.actor_timeout, std::move(on_ok),
                    std::move(on_failure), xs...);
        },
        args);
  }

  /// Asks `dest` from a short-lived actor; its answer (`on_ok`) or error
  /// (`on_err`) runs on the loop.
  template <class Dest, class OnOk, class OnErr, class... Ts>
  void ask_actor(const Dest& dest, std::chrono::milliseconds limit, OnOk on_ok,
                 OnErr on_err, const Ts&... xs) {
    ctx_->sys.spawn([dest, limit, ok = on_loop(std::move(on_ok)),
                     err = on_loop(std::move(on_err)),
                     msg = std::make_tuple(xs...)](caf::event_based_actor* self) mutable {
      std::apply(
          [&](auto&... args) {
            self->request(dest, limit, args...).then(std::move(ok), std::move(err));
          },
          msg);
    });
  }

  /// `f` with the same parameters, posting its call to the loop with copies
  /// of its arguments: CAF's handlers then run on the gateway's loop.
  template <class F> auto on_loop(F f) {
    using args = typename caf::detail::get_callable_trait<F>::arg_types;
    return on_loop(std::move(f), args{});
  }
  template <class F, class... Args> auto on_loop(F f, caf::detail::type_list<Args...>) {
    return [loop = ctx_->loop, f = std::move(f)](Args... xs) mutable {
      asio::post(*loop,
                 [f, values = std::make_tuple(std::decay_t<Args>(xs)...)]() mutable {
                   std::apply(f, values);
                 });
    };
  }

  /// Asks the router for the carrier's shards, then runs `next`.
  void refresh(std::function<void()> next);

  context_ptr ctx_;
  restinio::request_handle_t req_;
  std::string_view route_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::vector<std::string> params_;
  std::string decoded_body_;
  std::string token_;
  bool decoded_ = false;
  bool answered_ = false;
};

using exchange_ptr = std::shared_ptr<exchange>;

} // namespace simsync::net
