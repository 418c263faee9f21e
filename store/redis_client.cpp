#include "store/redis_client.hpp"

#include <hiredis/hiredis.h>

#include <cerrno>
#include <charconv>
#include <sys/socket.h>
#include <sys/time.h>

namespace simsync::store {

// -- endpoint -----------------------------------------------------------------

caf::expected<redis_endpoint> redis_endpoint::parse(std::string_view text) {
  redis_endpoint out;
  if (text.substr(0, 5) == "unix:") {
    out.unix_path = std::string(text.substr(5));
    if (out.unix_path.empty())
      return caf::make_error(ec::invalid_request, "empty unix socket path in",
                             std::string(text));
    return out;
  }
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    return caf::make_error(ec::invalid_request,
                           "Redis address must be host:port or unix:/path, got",
                           std::string(text));
  out.host = std::string(text.substr(0, colon));
  auto port_text = text.substr(colon + 1);
  auto [end, err] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), out.port);
  if (err != std::errc{} || end != port_text.data() + port_text.size() || out.port <= 0 ||
      out.port > 65535)
    return caf::make_error(ec::invalid_request, "bad Redis port in", std::string(text));
  return out;
}

std::string redis_endpoint::to_string() const {
  return unix_path.empty() ? host + ":" + std::to_string(port) : "unix:" + unix_path;
}

std::vector<std::string_view> redis_endpoint::auth_command() const {
  if (user.empty())
    return {"AUTH", password};
  return {"AUTH", user, password};
}

// -- replies ------------------------------------------------------------------

bool reply_view::is_nil() const {
  return r_->type == REDIS_REPLY_NIL;
}
bool reply_view::is_error() const {
  return r_->type == REDIS_REPLY_ERROR;
}
bool reply_view::is_array() const {
  return r_->type == REDIS_REPLY_ARRAY;
}
bool reply_view::is_integer() const {
  return r_->type == REDIS_REPLY_INTEGER;
}

std::string_view reply_view::str() const {
  switch (r_->type) {
  case REDIS_REPLY_STRING:
  case REDIS_REPLY_STATUS:
  case REDIS_REPLY_ERROR:
    return {r_->str, r_->len};
  default:
    return {};
  }
}

long long reply_view::integer() const {
  return r_->type == REDIS_REPLY_INTEGER ? r_->integer : 0;
}

std::size_t reply_view::size() const {
  return r_->type == REDIS_REPLY_ARRAY ? r_->elements : 0;
}

reply_view reply_view::operator[](std::size_t i) const {
  return reply_view{r_->element[i]};
}

reply::reply(redisReply* r) : r_(r) {}

void reply::deleter::operator()(redisReply* r) const {
  freeReplyObject(r);
}

// -- client -------------------------------------------------------------------

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

} // namespace

caf::expected<redis_client> redis_client::connect(const redis_endpoint& where,
                                                  std::chrono::milliseconds timeout) {
  auto tv = to_timeval(timeout);
  redisContext* ctx = where.unix_path.empty()
                          ? redisConnectWithTimeout(where.host.c_str(), where.port, tv)
                          : redisConnectUnixWithTimeout(where.unix_path.c_str(), tv);
  if (ctx == nullptr)
    return caf::make_error(ec::store_unavailable, "cannot allocate a Redis context");
  if (ctx->err != 0) {
    std::string why = ctx->errstr;
    redisFree(ctx);
    return caf::make_error(ec::store_unavailable, "cannot connect to Redis at " +
                                                      where.to_string() + ": " + why);
  }
  redisSetTimeout(ctx, tv);
  if (!where.password.empty()) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (auto arg : where.auth_command()) {
      argv.push_back(arg.data());
      lens.push_back(arg.size());
    }
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lens.data()));
    auto who = where.user.empty() ? std::string{"default"} : where.user;
    if (r == nullptr) {
      std::string why = ctx->errstr;
      redisFree(ctx);
      return caf::make_error(ec::store_unavailable, "cannot authenticate user " + who +
                                                        " at Redis at " +
                                                        where.to_string() + ": " + why);
    }
    bool refused = r->type == REDIS_REPLY_ERROR;
    // Redis' own reason ("WRONGPASS ...") never holds the password.
    std::string why = refused ? std::string{r->str, r->len} : std::string{};
    freeReplyObject(r);
    if (refused) {
      redisFree(ctx);
      return caf::make_error(ec::store_unavailable,
                             "Redis at " + where.to_string() +
                                 " refused the credentials of user " + who + " (" + why +
                                 ")");
    }
  }
  return redis_client{ctx, where};
}

redis_client::redis_client(redisContext* ctx, redis_endpoint where)
    : ctx_(ctx), where_(std::move(where)) {}

redis_client::redis_client(redis_client&& other) noexcept
    : ctx_(other.ctx_), where_(std::move(other.where_)), round_trips_(other.round_trips_),
      healthy_(other.healthy_) {
  other.ctx_ = nullptr;
}

redis_client& redis_client::operator=(redis_client&& other) noexcept {
  if (this != &other) {
    if (ctx_ != nullptr)
      redisFree(ctx_);
    ctx_ = other.ctx_;
    where_ = std::move(other.where_);
    round_trips_ = other.round_trips_;
    healthy_ = other.healthy_;
    other.ctx_ = nullptr;
  }
  return *this;
}

redis_client::~redis_client() {
  if (ctx_ != nullptr)
    redisFree(ctx_);
}

caf::error redis_client::io_error(const char* what) {
  healthy_ = false;
  return caf::make_error(ec::store_unavailable, std::string(what) + " Redis at " +
                                                    where_.to_string() + ": " +
                                                    ctx_->errstr);
}

bool redis_client::closed_while_idle() const {
  // Between round trips Redis owes no byte: end of stream or an error means
  // it closed the connection, and a byte means it is out of step.
  char byte;
  auto n = recv(ctx_->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

caf::error redis_client::send(const command* first, std::size_t n) {
  if (!healthy_)
    return caf::make_error(ec::store_unavailable,
                           "connection to Redis at " + where_.to_string() + " is broken");
  if (closed_while_idle()) {
    auto fresh = connect(where_);
    if (!fresh) {
      healthy_ = false;
      return std::move(fresh.error());
    }
    std::swap(ctx_, fresh->ctx_);
  }
  for (const auto* cmd = first; cmd != first + n; ++cmd) {
    // (The client's own argument lists, kept between calls: growing a fresh
    // pair for every call was a tenth of a node's allocations.)
    argv_.clear();
    argv_len_.clear();
    for (auto arg : *cmd) {
      argv_.push_back(arg.data());
      argv_len_.push_back(arg.size());
    }
    if (redisAppendCommandArgv(ctx_, static_cast<int>(argv_.size()), argv_.data(),
                               argv_len_.data()) != REDIS_OK)
      return io_error("cannot queue a command for");
  }
  ++round_trips_;
  return {};
}

caf::expected<reply> redis_client::read_reply() {
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr)
    return io_error("lost the connection to");
  return reply(static_cast<redisReply*>(raw));
}

caf::expected<std::vector<reply>>
redis_client::pipeline(const std::vector<command>& commands) {
  if (auto failed = send(commands.data(), commands.size()))
    return failed;
  std::vector<reply> replies;
  replies.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    auto r = read_reply();
    if (!r)
      return std::move(r.error());
    replies.push_back(std::move(*r));
  }
  return replies;
}

caf::expected<reply> redis_client::call(const command& cmd) {
  if (auto failed = send(&cmd, 1))
    return failed;
  return read_reply();
}

} // namespace simsync::store
