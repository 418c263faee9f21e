#pragma once

// The gateway's own way to the shards of its node. A phone's frequent
// requests (uploads and removals, updates, pending pages, acknowledgements)
// are one script call each; for an account of this node the gateway sends
// that call from its I/O loop to the node's Redis on one asynchronous
// connection and answers from the reply, on the same thread. Through a
// shard actor the same request woke three other threads (a request actor, the
// shard's own thread, the request actor again), which cost more CPU than
// the work. Requests in flight together share the connection's round trips.
//
// Every other request, and every account of another node, is asked of its
// shard actor as before. Both run the same calls (store/account_calls.hpp),
// and Redis runs each script atomically, so the two ways may interleave.

#include "actors/protocol.hpp"
#include "actors/replication_backlog.hpp"
#include "core/keyring.hpp"
#include "metrics/request_meter.hpp"
#include "store/account_calls.hpp"
#include "store/async_redis.hpp"

#include <asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simsync::net {

class local_store {
public:
  struct settings {
    store::redis_endpoint redis;
    std::string carrier;
    std::shared_ptr<const core::shared_keyring> keys;
    /// Shared writes are refused while replication is further behind than
    /// max_lag, as the shards refuse them.
    std::shared_ptr<const replication_backlog> backlog;
    std::chrono::milliseconds max_lag{0};
    store::history_policy history;
    std::vector<int> shards; ///< the shards this node owns
    /// A call without an answer by then fails (504), as a shard's would.
    std::chrono::milliseconds limit{30'000};
    /// Where each call is counted and timed (the gateway's meter).
    std::shared_ptr<metrics::request_meter> meter;
  };

  /// Lives on `loop`: every member runs on its thread.
  local_store(asio::io_context& loop, settings s);

  bool owns(int shard) const;

  /// Why a shared write to an account of this node is refused now
  /// (ec::replication_behind: a link is further behind than max_lag), or
  /// none. The shard actors refuse the same way.
  caf::error shared_write_refusal() const { return s_.backlog->refusal_now(s_.max_lag); }

  /// Each runs its call and hands `done` a caf::expected of its result.
  template <class Done> void upload(const store::upload_request& req, Done done) {
    if (req.refused_when_behind())
      if (auto refusal = shared_write_refusal())
        return done(caf::expected<store::upload_result>{std::move(refusal)});
    run(std::make_shared<const store::upload_call>(req, s_.carrier, s_.keys->current(),
                                                   s_.history),
        std::move(done));
  }
  template <class Done>
  void update(const std::string& idcode, const std::string& line,
              const std::string& proof, Done done) {
    run(std::make_shared<const store::update_call>(idcode, line, proof), std::move(done));
  }
  template <class Done> void fetch(const store::pending_request& req, Done done) {
    run(std::make_shared<const store::fetch_call>(req, s_.keys->current()),
        std::move(done));
  }
  template <class Done>
  void ack(const std::string& idcode, const std::string& line, const std::string& proof,
           const std::string& cursor, store::decision what, std::uint32_t step,
           Done done) {
    run(std::make_shared<const store::ack_call>(idcode, line, proof, cursor, what, step),
        std::move(done));
  }

private:
  /// Runs `call`, counted and timed in the meter (gateway/local_store in
  /// /admin/actors and /metrics), then `done` with its result.
  template <class Call, class Done>
  void run(std::shared_ptr<const Call> call, Done done) {
    store::run_call(
        redis_, std::move(call),
        [meter = s_.meter, started = std::chrono::steady_clock::now(),
         done = std::move(done)](caf::expected<typename Call::result_type> r) mutable {
          std::string error = r ? std::string{} : describe(r.error());
          meter->store_call(std::chrono::steady_clock::now() - started,
                            r ? nullptr : &error);
          done(std::move(r));
        });
  }

  settings s_;
  store::async_redis redis_;
};

/// The calls a shard actor's message maps to: false when `xs` is not one of
/// them (the message goes to the shard actor). `done` takes the call's
/// caf::expected result.
template <class Done, class... Ts> bool run_locally(local_store&, Done&, const Ts&...) {
  return false;
}
template <class Done>
bool run_locally(local_store& s, Done& done, const atom::upload&,
                 const store::upload_request& req) {
  s.upload(req, std::move(done));
  return true;
}
template <class Done>
bool run_locally(local_store& s, Done& done, const atom::update&,
                 const std::string& idcode, const std::string& line,
                 const std::string& proof) {
  s.update(idcode, line, proof, std::move(done));
  return true;
}
template <class Done>
bool run_locally(local_store& s, Done& done, const atom::fetch&,
                 const store::pending_request& req) {
  s.fetch(req, std::move(done));
  return true;
}
template <class Done>
bool run_locally(local_store& s, Done& done, const atom::ack&, const std::string& idcode,
                 const std::string& line, const std::string& proof,
                 const std::string& cursor, store::decision what, std::uint32_t step) {
  s.ack(idcode, line, proof, cursor, what, step, std::move(done));
  return true;
}

} // namespace simsync::net
