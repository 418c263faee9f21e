#pragma once

#include "store/redis_client.hpp"
#include "store/redis_presence.hpp"

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

#include <caf/expected.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

struct redisAsyncContext;

namespace simsync::store {

/// A command in Redis's wire format: formatted once, sent as often as need be
/// (a script call sent again after its library was loaded).
class wire_command {
public:
  explicit wire_command(const command& cmd);
  std::string_view bytes() const { return {text_.get(), size_}; }

private:
  struct deleter {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, deleter> text_;
  std::size_t size_ = 0;
};

/// One connection to Redis on an asio event loop (hiredis' asynchronous API):
/// no thread waits on Redis. Commands sent while the loop is busy go out
/// together in one write, and their replies come back in order, so a burst
/// of requests costs one round trip.
///
/// Every member runs on the loop's thread, callbacks included. The
/// connection opens on the first command, and again on a later one after it
/// broke (at most once per `retry_pause`; in between, commands fail at once).
/// It must be destroyed before its loop.
/// A command without an answer after `limit` fails with
/// caf::sec::request_timeout, and so does everything sent after it, because
/// Redis answers in order: the connection is dropped and opened anew.
class async_redis {
public:
  /// The reply is only valid during the call; a broken or dropped
  /// connection is ec::store_unavailable, a stalled one request_timeout.
  using handler = std::function<void(caf::expected<reply_view>)>;

  async_redis(asio::io_context& loop, redis_endpoint where,
              std::chrono::milliseconds limit,
              std::chrono::milliseconds retry_pause = std::chrono::milliseconds{100});
  /// Fails what is still waiting (ec::store_unavailable).
  ~async_redis();
  async_redis(const async_redis&) = delete;
  async_redis& operator=(const async_redis&) = delete;

  /// Sends `cmd` (its bytes are copied before this returns); `done` runs
  /// exactly once, on the loop's thread, never inside this call.
  void send(const command& cmd, handler done);
  /// The same, for a command already in Redis's wire format (wire_command).
  void send_wire(std::string_view wire, handler done);

  /// Commands sent and not answered yet.
  std::size_t waiting() const { return waiting_.size(); }
  /// Connections opened so far (the first one included).
  std::uint64_t connections() const { return connections_; }
  /// From now on, losing Redis and having it back are logged as `owner`'s
  /// (redis_presence).
  void report_as(std::string owner) {
    presence_.emplace(std::move(owner), where_.to_string());
  }

  struct watch; ///< the adapter between hiredis and the loop (async_redis.cpp)

private:
  struct waiting_command {
    handler done;
    std::chrono::steady_clock::time_point sent;
    bool answered = false;
  };

  bool connect();
  void fail_now(handler done, caf::error why);
  void arm_deadline();
  void drop(caf::error why);
  void lost(const std::string& why);
  static void on_reply(redisAsyncContext* ac, void* reply, void* privdata);
  static void on_connect(const redisAsyncContext* ac, int status);
  static void on_auth(redisAsyncContext* ac, void* reply, void* privdata);

  asio::io_context& loop_;
  redis_endpoint where_;
  std::chrono::milliseconds limit_;
  std::chrono::milliseconds retry_pause_;
  redisAsyncContext* ac_ = nullptr;
  std::shared_ptr<watch> watch_;
  /// Sent, in order; hiredis answers each exactly once (null when it drops
  /// the connection), and owns the entry until then.
  std::deque<waiting_command*> waiting_;
  asio::steady_timer deadline_;
  bool deadline_armed_ = false;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point last_failure_{};
  std::string last_error_;
  std::uint64_t connections_ = 0;
  std::optional<redis_presence> presence_; ///< when report_as named the owner
};

} // namespace simsync::store
