#pragma once

#include "core/error.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;
struct redisReply;

namespace simsync::store {

/// Where a Redis server listens: "host:port" or "unix:/path/to/socket".
struct redis_endpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string unix_path; ///< used instead of host:port when not empty
  /// The ACL user and its password: connect sends `AUTH user password` when
  /// the password is not empty. Secrets: to_string() and errors never show
  /// the password.
  std::string user;
  std::string password;

  /// host:port or unix:/path; user and password stay empty.
  static caf::expected<redis_endpoint> parse(std::string_view text);
  /// Where, never who: "host:port" or "unix:/path".
  std::string to_string() const;
  /// AUTH [user] password, the first command of a connection when the
  /// password is not empty (a Redis with ACLs answers NOAUTH to anything
  /// else). Views into this endpoint.
  std::vector<std::string_view> auth_command() const;
};

/// A read-only view of one node of a hiredis reply tree.
class reply_view {
public:
  explicit reply_view(const redisReply* r) : r_(r) {}

  bool is_nil() const;
  bool is_error() const;
  bool is_array() const;
  bool is_integer() const;
  /// Bulk string, status or error text; empty for other kinds.
  std::string_view str() const;
  long long integer() const;
  /// Number of elements of an array; 0 otherwise.
  std::size_t size() const;
  reply_view operator[](std::size_t i) const;

private:
  const redisReply* r_;
};

/// Owns a reply tree as hiredis returned it: no copy of its strings.
class reply {
public:
  explicit reply(redisReply* r);
  reply_view view() const { return reply_view{r_.get()}; }
  reply_view operator[](std::size_t i) const { return view()[i]; }

private:
  struct deleter {
    void operator()(redisReply* r) const;
  };
  std::unique_ptr<redisReply, deleter> r_;
};

/// A Redis command as its arguments; the bytes must outlive the call.
using command = std::vector<std::string_view>;

/// One blocking connection to Redis (hiredis' sync API). Not thread-safe:
/// each owner (a detached actor, a test) has its own. Every call is one
/// round trip, however many commands it pipelines; round_trips() counts them.
class redis_client {
public:
  /// Connects and, when `where` has a password, authenticates (AUTH) before
  /// anything else: refused credentials are ec::store_unavailable, naming
  /// the user and address (never the password).
  static caf::expected<redis_client>
  connect(const redis_endpoint& where,
          std::chrono::milliseconds timeout = std::chrono::seconds{30});

  redis_client(redis_client&&) noexcept;
  redis_client& operator=(redis_client&&) noexcept;
  ~redis_client();

  /// Sends every command in one write and reads every reply. Redis error
  /// replies come back as replies; a broken connection is an error. A
  /// connection Redis closed while nothing was asked of it (ACL LOAD after a
  /// password rotation, CLIENT KILL, a timeout) is opened again first: no
  /// command can have been lost with it.
  caf::expected<std::vector<reply>> pipeline(const std::vector<command>& commands);
  caf::expected<reply> call(const command& cmd);

  std::uint64_t round_trips() const { return round_trips_; }
  /// False after an I/O error: the owner reconnects with a new client.
  bool healthy() const { return healthy_; }
  const redis_endpoint& endpoint() const { return where_; }

private:
  redis_client(redisContext* ctx, redis_endpoint where);
  caf::error io_error(const char* what);
  bool closed_while_idle() const;
  /// Queues commands [first, first + n); hiredis writes them all with the
  /// first read_reply: one round trip.
  caf::error send(const command* first, std::size_t n);
  caf::expected<reply> read_reply();

  redisContext* ctx_ = nullptr;
  redis_endpoint where_;
  std::uint64_t round_trips_ = 0;
  bool healthy_ = true;
  // A command's arguments as hiredis takes them, kept between calls.
  std::vector<const char*> argv_;
  std::vector<std::size_t> argv_len_;
};

} // namespace simsync::store
