#include "store/async_redis.hpp"

#include "core/error.hpp"

#include <asio/posix/stream_descriptor.hpp>
#include <asio/post.hpp>
#include <caf/sec.hpp>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <new>
#include <vector>

namespace simsync::store {

// -- the wire format -----------------------------------------------------------

wire_command::wire_command(const command& cmd) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  argv.reserve(cmd.size());
  lens.reserve(cmd.size());
  for (auto arg : cmd) {
    argv.push_back(arg.data());
    lens.push_back(arg.size());
  }
  char* text = nullptr;
  auto n = redisFormatCommandArgv(&text, static_cast<int>(argv.size()), argv.data(),
                                  lens.data());
  if (n < 0 || !text)
    throw std::bad_alloc{};
  text_.reset(text);
  size_ = static_cast<std::size_t>(n);
}

void wire_command::deleter::operator()(char* p) const {
  redisFreeCommand(p);
}

// -- the adapter ---------------------------------------------------------------

/// hiredis asks to be told when its socket is readable or writable; asio
/// waits for that on the loop. The socket stays hiredis's: released, never
/// closed, when hiredis cleans up.
struct async_redis::watch : std::enable_shared_from_this<async_redis::watch> {
  watch(asio::io_context& loop, redisAsyncContext* ac, async_redis* owner)
      : socket(loop, ac->c.fd), ac(ac), owner(owner) {}

  asio::posix::stream_descriptor socket;
  redisAsyncContext* ac;
  async_redis* owner;
  bool reading = false;
  bool writing = false;
  bool read_armed = false;
  bool write_armed = false;
  bool closed = false;

  /// Waits (once) for the socket to be readable or writable while hiredis
  /// wants it, then lets hiredis read or write.
  void arm(bool read) {
    bool& armed = read ? read_armed : write_armed;
    if (armed || closed || !(read ? reading : writing))
      return;
    armed = true;
    socket.async_wait(read ? asio::posix::stream_descriptor::wait_read
                           : asio::posix::stream_descriptor::wait_write,
                      [self = shared_from_this(), read](const asio::error_code& err) {
                        (read ? self->read_armed : self->write_armed) = false;
                        if (err || self->closed ||
                            !(read ? self->reading : self->writing))
                          return;
                        if (read)
                          redisAsyncHandleRead(self->ac);
                        else
                          redisAsyncHandleWrite(self->ac);
                        self->arm(read);
                      });
  }

  static watch* of(void* privdata) { return static_cast<watch*>(privdata); }
  static void add_read(void* p) {
    of(p)->reading = true;
    of(p)->arm(true);
  }
  static void del_read(void* p) { of(p)->reading = false; }
  static void add_write(void* p) {
    of(p)->writing = true;
    of(p)->arm(false);
  }
  static void del_write(void* p) { of(p)->writing = false; }
  /// hiredis is freeing the context and will close the socket next.
  static void cleanup(void* p) {
    auto* w = of(p);
    w->closed = true;
    asio::error_code ignored;
    w->socket.cancel(ignored);
    w->socket.release();
    if (w->owner && w->owner->ac_ == w->ac)
      w->owner->ac_ = nullptr;
  }
};

// -- the connection ------------------------------------------------------------

namespace {

caf::error unavailable(const redis_endpoint& where, const std::string& why) {
  return caf::make_error(ec::store_unavailable,
                         "Redis at " + where.to_string() + ": " + why);
}

} // namespace

async_redis::async_redis(asio::io_context& loop, redis_endpoint where,
                         std::chrono::milliseconds limit,
                         std::chrono::milliseconds retry_pause)
    : loop_(loop), where_(std::move(where)), limit_(limit), retry_pause_(retry_pause),
      deadline_(loop) {}

async_redis::~async_redis() {
  stopping_ = true;
  deadline_.cancel();
  if (ac_) {
    last_error_ = "the node is stopping";
    redisAsyncFree(ac_); // answers every waiting command (null reply)
  }
  if (watch_)
    watch_->owner = nullptr;
}

bool async_redis::connect() {
  if (stopping_)
    return false;
  if (ac_ && !(ac_->c.flags & (REDIS_DISCONNECTING | REDIS_FREEING)))
    return true;
  if (ac_)
    return false; // being freed: its cleanup must not race a new context
  if (connections_ > 0 && std::chrono::steady_clock::now() - last_failure_ < retry_pause_)
    return false;
  auto* ac = where_.unix_path.empty()
                 ? redisAsyncConnect(where_.host.c_str(), where_.port)
                 : redisAsyncConnectUnix(where_.unix_path.c_str());
  ++connections_;
  if (!ac || ac->err) {
    last_error_ = ac ? ac->errstr : "out of memory";
    last_failure_ = std::chrono::steady_clock::now();
    if (ac)
      redisAsyncFree(ac);
    return false;
  }
  ac->data = this;
  watch_ = std::make_shared<watch>(loop_, ac, this);
  ac->ev.data = watch_.get();
  ac->ev.addRead = watch::add_read;
  ac->ev.delRead = watch::del_read;
  ac->ev.addWrite = watch::add_write;
  ac->ev.delWrite = watch::del_write;
  ac->ev.cleanup = watch::cleanup;
  redisAsyncSetConnectCallback(ac, on_connect);
  ac_ = ac;
  if (!where_.password.empty()) {
    wire_command auth{where_.auth_command()};
    redisAsyncFormattedCommand(ac, on_auth, this, auth.bytes().data(),
                               auth.bytes().size());
  }
  return true;
}

void async_redis::on_connect(const redisAsyncContext* ac, int status) {
  auto* self = static_cast<async_redis*>(ac->data);
  if (status == REDIS_OK) {
    self->last_error_.clear();
    return;
  }
  self->last_error_ = ac->errstr;
  self->last_failure_ = std::chrono::steady_clock::now();
  // hiredis frees the context next, answering what waits with null replies.
}

void async_redis::on_auth(redisAsyncContext* ac, void* r, void* privdata) {
  auto* self = static_cast<async_redis*>(privdata);
  auto* reply = static_cast<redisReply*>(r);
  if (!reply || reply->type != REDIS_REPLY_ERROR)
    return;
  // Refused credentials: what was sent behind AUTH fails with this reason.
  self->last_error_ = "refused the credentials of user " +
                      (self->where_.user.empty() ? "default" : self->where_.user) + " (" +
                      std::string(reply->str, reply->len) + ")";
  self->last_failure_ = std::chrono::steady_clock::now();
  redisAsyncFree(ac);
}

void async_redis::fail_now(handler done, caf::error why) {
  asio::post(loop_, [done = std::move(done), why = std::move(why)]() mutable {
    done(std::move(why));
  });
}

void async_redis::send(const command& cmd, handler done) {
  wire_command wire{cmd};
  send_wire(wire.bytes(), std::move(done));
}

void async_redis::send_wire(std::string_view wire, handler done) {
  if (!connect()) {
    lost(last_error_.empty() ? "not reachable" : last_error_);
    return fail_now(
        std::move(done),
        unavailable(where_, last_error_.empty() ? "not reachable" : last_error_));
  }
  auto* entry = new waiting_command{std::move(done), std::chrono::steady_clock::now()};
  if (redisAsyncFormattedCommand(ac_, on_reply, entry, wire.data(), wire.size()) !=
      REDIS_OK) {
    auto failed = std::move(entry->done);
    delete entry;
    return fail_now(std::move(failed), unavailable(where_, "the command was not queued"));
  }
  waiting_.push_back(entry);
  arm_deadline();
}

void async_redis::on_reply(redisAsyncContext* ac, void* r, void* privdata) {
  auto* self = static_cast<async_redis*>(ac->data);
  auto* entry = static_cast<waiting_command*>(privdata);
  // Replies come in the order of the commands: this one is the oldest.
  if (!self->waiting_.empty() && self->waiting_.front() == entry)
    self->waiting_.pop_front();
  if (!entry->answered) {
    entry->answered = true;
    if (r) {
      if (self->presence_)
        self->presence_->reached();
      entry->done(reply_view{static_cast<redisReply*>(r)});
    } else {
      if (self->last_error_.empty() && ac->err)
        self->last_error_ = ac->errstr;
      self->last_failure_ = std::chrono::steady_clock::now();
      self->lost(self->last_error_.empty() ? "the connection was lost"
                                           : self->last_error_);
      entry->done(unavailable(self->where_, self->last_error_.empty()
                                                ? "the connection was lost"
                                                : self->last_error_));
    }
  }
  delete entry;
}

void async_redis::arm_deadline() {
  if (deadline_armed_ || waiting_.empty())
    return;
  deadline_armed_ = true;
  deadline_.expires_at(waiting_.front()->sent + limit_);
  deadline_.async_wait([this](const asio::error_code& err) {
    if (err)
      return; // cancelled: `this` may be gone
    deadline_armed_ = false;
    while (!waiting_.empty() && waiting_.front()->answered)
      waiting_.pop_front();
    if (waiting_.empty())
      return;
    if (std::chrono::steady_clock::now() - waiting_.front()->sent < limit_)
      return arm_deadline();
    drop(caf::make_error(caf::sec::request_timeout,
                         "Redis at " + where_.to_string() + " did not answer within " +
                             std::to_string(limit_.count()) + " ms"));
  });
}

void async_redis::lost(const std::string& why) {
  if (presence_ && !stopping_)
    presence_->lost(why);
}

void async_redis::drop(caf::error why) {
  lost(describe(why));
  // Everything waiting fails with `why`: marked answered first, so that
  // hiredis's null replies, as it frees the connection, find them so; the
  // handlers run last, when a command they send goes to a new connection.
  std::vector<handler> stalled;
  for (auto* entry : waiting_)
    if (!entry->answered) {
      entry->answered = true;
      stalled.push_back(std::move(entry->done));
    }
  waiting_.clear();
  last_failure_ = {}; // the next command may connect at once
  if (ac_)
    redisAsyncFree(ac_);
  for (auto& done : stalled)
    done(why);
}

} // namespace simsync::store
