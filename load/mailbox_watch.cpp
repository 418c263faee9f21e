#include "load/mailbox_watch.hpp"

#include "core/stamp.hpp"
#include "load/progress.hpp"
#include "store/history_entry.hpp"
#include "store/keys.hpp"

#include <hiredis/hiredis.h>
#include <nlohmann/json.hpp>

#include <deque>
#include <fcntl.h>
#include <stdexcept>

namespace simsync::load {

namespace {

constexpr const char* channel_prefix = "__keyspace@0__:";

struct reply_ptr {
  redisReply* r;
  ~reply_ptr() {
    if (r)
      freeReplyObject(r);
  }
};

/// A connection to `where`, authenticated when it has a password.
redisContext* connect_to(const store::redis_endpoint& where) {
  auto address = where.to_string();
  if (!where.unix_path.empty())
    throw std::runtime_error("redis address " + address + " is not host:port");
  timeval tv{5, 0};
  auto* c = redisConnectWithTimeout(where.host.c_str(), where.port, tv);
  if (!c || c->err) {
    std::string why = c ? c->errstr : "out of memory";
    if (c)
      redisFree(c);
    throw std::runtime_error("cannot connect to redis " + address + ": " + why);
  }
  if (!where.password.empty()) {
    const char* argv[] = {"AUTH", where.user.c_str(), where.password.c_str()};
    std::size_t lens[] = {4, where.user.size(), where.password.size()};
    reply_ptr r{static_cast<redisReply*>(redisCommandArgv(c, 3, argv, lens))};
    if (!r.r || r.r->type == REDIS_REPLY_ERROR) {
      std::string why = r.r ? r.r->str : c->errstr; // never the password
      redisFree(c);
      throw std::runtime_error("redis " + address + " refused the credentials of user " +
                               where.user + ": " + why);
    }
  }
  return c;
}

std::string call_string(redisContext* c, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  reply_ptr r{static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()))};
  if (!r.r)
    throw std::runtime_error(std::string("redis: ") + c->errstr);
  if (r.r->type == REDIS_REPLY_ERROR)
    throw std::runtime_error("redis: " + args[0] + ": " + r.r->str);
  if (r.r->type == REDIS_REPLY_ARRAY && r.r->elements == 2 &&
      r.r->element[1]->type == REDIS_REPLY_STRING)
    return r.r->element[1]->str; // CONFIG GET's value
  return r.r->type == REDIS_REPLY_STRING || r.r->type == REDIS_REPLY_STATUS ? r.r->str
                                                                            : "";
}

void make_nonblocking(redisContext* c) {
  int flags = fcntl(c->fd, F_GETFL);
  fcntl(c->fd, F_SETFL, flags | O_NONBLOCK);
  c->flags &= ~REDIS_BLOCK;
}

} // namespace

struct mailbox_watch::redis_conn {
  std::string carrier; ///< whose Redis
  std::string address;
  store::redis_endpoint where; ///< address and login (the operator's)
  redisContext* sub = nullptr;
  redisContext* cmd = nullptr;
  std::string old_events; ///< notify-keyspace-events before the run
  bool changed = false;   ///< old_events must be restored
  std::deque<std::function<void(void*)>> waiting;

  // Restores the server's setting, on a fresh blocking connection; here and
  // not in ~mailbox_watch, so a constructor that fails half way restores too.
  ~redis_conn() {
    if (changed) {
      try {
        auto* restore = connect_to(where);
        call_string(restore, {"CONFIG", "SET", "notify-keyspace-events", old_events});
        redisFree(restore);
      } catch (const std::exception& e) {
        say(std::string("warning: could not restore notify-keyspace-events of ") +
            address + ": " + e.what());
      }
    }
    if (sub)
      redisFree(sub);
    if (cmd)
      redisFree(cmd);
  }
};

mailbox_watch::mailbox_watch(const deployment& d, http_driver& http,
                             std::chrono::milliseconds poll, bool use_redis)
    : http_(http), poll_(poll) {
  if (!use_redis || !d.has_mailbox_keys())
    return;
  try {
    for (const auto& carrier : d.carriers)
      for (std::size_t i = 0; i < carrier.redis.size(); ++i) {
        const auto& address = carrier.redis[i];
        conns_.push_back(std::make_unique<redis_conn>());
        auto* c = conns_.back().get();
        c->carrier = carrier.id;
        c->address = address;
        c->where = redis_endpoint_of(carrier, i);
        c->cmd = connect_to(c->where);
        c->old_events = call_string(c->cmd, {"CONFIG", "GET", "notify-keyspace-events"});
        // K: keyspace channel; t: stream commands. 'A' already includes t.
        std::string events = c->old_events;
        if (events.find('K') == std::string::npos)
          events += 'K';
        if (events.find('t') == std::string::npos &&
            events.find('A') == std::string::npos)
          events += 't';
        call_string(c->cmd, {"CONFIG", "SET", "notify-keyspace-events", events});
        c->changed = true;
        c->sub = connect_to(c->where);
        reply_ptr r{static_cast<redisReply*>(
            redisCommand(c->sub, "PSUBSCRIBE %s", "__keyspace@0__:history:*"))};
        if (!r.r)
          throw std::runtime_error("redis " + address + ": PSUBSCRIBE failed");
        make_nonblocking(c->sub);
        make_nonblocking(c->cmd);
        http_.watch_fd(c->sub->fd, [this, c] { read_events(*c); });
        http_.watch_fd(c->cmd->fd, [this, c] { read_replies(*c); });
      }
  } catch (...) {
    // Half set up: forget the fds; each connection restores its setting.
    for (auto& c : conns_) {
      if (c->sub)
        http_.unwatch_fd(c->sub->fd);
      if (c->cmd)
        http_.unwatch_fd(c->cmd->fd);
    }
    throw;
  }
}

mailbox_watch::~mailbox_watch() {
  for (auto& c : conns_) {
    http_.unwatch_fd(c->sub->fd);
    http_.unwatch_fd(c->cmd->fd);
  }
  // Each connection's destructor restores its server's setting.
}

std::string mailbox_watch::method() const {
  if (uses_redis())
    return "redis keyspace notifications";
  return "API polling (POST /update) every " + std::to_string(poll_.count()) + " ms";
}

double mailbox_watch::resolution_ms() const {
  return uses_redis() ? 0.0 : static_cast<double>(poll_.count());
}

namespace {

std::string line_key(const line& l) {
  return l.carrier + " " + l.line_id;
}

} // namespace

mailbox_watch::key_watch& mailbox_watch::entry(const person& p, const line& l) {
  auto key = line_key(l);
  auto& w = watches_[key];
  if (w.update_url.empty()) {
    w.update_url = line_url(l, "/update");
    w.token = l.token;
    w.carrier = l.carrier;
    w.history = store::keys::history(p.idcode);
    start_reading_now(w);
    by_stream_[w.carrier + " " + w.history].push_back(key);
  }
  return w;
}

void mailbox_watch::start_reading_now(key_watch& w) {
  // Stream ids are Redis's clock in ms, which is this machine's or close to it.
  w.read_from = std::to_string(core::unix_now_ms()) + "-0";
  w.named.clear();
}

void mailbox_watch::watch_count(const person& p, const line& l, std::size_t count,
                                seen_fn seen) {
  auto& w = entry(p, l);
  if (!w.reading)
    start_reading_now(w);
  w.count_target = count;
  w.count_seen = std::move(seen);
}

void mailbox_watch::watch_uid(const person& p, const line& l, const std::string& uid,
                              std::size_t ordinal, seen_fn seen) {
  auto& w = entry(p, l);
  // Nothing in flight to it: what its history held before is of no interest
  // (a single change in flight is resolved by its event without a read, and
  // the read position stays behind).
  if (w.uids.empty() && !w.count_seen && !w.reading)
    start_reading_now(w);
  w.uids.emplace_back(uid, std::move(seen));
  w.ordinals.push_back(ordinal);
}

void mailbox_watch::forget_uid(const line& l, const std::string& uid) {
  auto it = watches_.find(line_key(l));
  if (it == watches_.end())
    return;
  auto& w = it->second;
  for (std::size_t i = 0; i < w.uids.size(); ++i)
    if (w.uids[i].first == uid) {
      w.uids.erase(w.uids.begin() + static_cast<std::ptrdiff_t>(i));
      w.ordinals.erase(w.ordinals.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
}

void mailbox_watch::clear() {
  watches_.clear();
  by_stream_.clear();
}

std::size_t mailbox_watch::waiting() const {
  std::size_t n = 0;
  for (const auto& [key, w] : watches_)
    n += w.uids.size() + (w.count_seen ? 1 : 0);
  return n;
}

// -- Redis mode ---------------------------------------------------------------

void mailbox_watch::command(redis_conn& c, std::vector<std::string> args,
                            std::function<void(void*)> on_reply) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  redisAppendCommandArgv(c.cmd, static_cast<int>(argv.size()), argv.data(), lens.data());
  int done = 0;
  while (!done)
    if (redisBufferWrite(c.cmd, &done) != REDIS_OK)
      throw std::runtime_error("redis " + c.address + ": write failed: " + c.cmd->errstr);
  c.waiting.push_back(std::move(on_reply));
}

void mailbox_watch::read_replies(redis_conn& c) {
  if (redisBufferRead(c.cmd) != REDIS_OK)
    throw std::runtime_error("redis " + c.address + ": read failed: " + c.cmd->errstr);
  void* reply = nullptr;
  while (redisGetReplyFromReader(c.cmd, &reply) == REDIS_OK && reply) {
    reply_ptr owned{static_cast<redisReply*>(reply)};
    if (!c.waiting.empty()) {
      auto handler = std::move(c.waiting.front());
      c.waiting.pop_front();
      handler(reply);
    }
    reply = nullptr;
  }
}

void mailbox_watch::read_events(redis_conn& c) {
  auto now = clock::now();
  if (redisBufferRead(c.sub) != REDIS_OK)
    throw std::runtime_error("redis " + c.address +
                             ": subscription lost: " + c.sub->errstr);
  void* reply = nullptr;
  static const std::string prefix = channel_prefix;
  while (redisGetReplyFromReader(c.sub, &reply) == REDIS_OK && reply) {
    reply_ptr owned{static_cast<redisReply*>(reply)};
    reply = nullptr;
    auto* r = owned.r;
    // ["pmessage", pattern, channel, event]
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 4)
      continue;
    std::string event(r->element[3]->str, r->element[3]->len);
    if (event != "xadd")
      continue;
    std::string channel(r->element[2]->str, r->element[2]->len);
    if (channel.compare(0, prefix.size(), prefix) != 0)
      continue;
    on_event(c, channel.substr(prefix.size()), now);
  }
}

void mailbox_watch::on_event(redis_conn& c, const std::string& stream,
                             clock::time_point when) {
  auto lines = by_stream_.find(c.carrier + " " + stream);
  if (lines == by_stream_.end())
    return;
  for (const auto& key : lines->second) {
    auto& w = watches_[key];
    if (w.uids.size() == 1 && !w.count_seen && !w.reading) {
      // The only change in flight to this mailbox: this write is it.
      resolve_uid(key, w.uids.front().first, when);
    } else if (!w.uids.empty() || w.count_seen) {
      read_history(c, key, when);
    }
  }
}

void mailbox_watch::read_history(redis_conn& c, const std::string& key,
                                 clock::time_point when) {
  auto& w = watches_[key];
  if (w.reading) {
    w.read_again = true;
    w.again_at = when;
    return;
  }
  w.reading = true;
  command(c, {"XRANGE", w.history, w.read_from, "+"}, [this, &c, key, when](void* reply) {
    auto it = watches_.find(key);
    if (it == watches_.end())
      return;
    auto* r = static_cast<redisReply*>(reply);
    std::vector<std::string> arrived;
    if (r->type == REDIS_REPLY_ARRAY) {
      for (std::size_t i = 0; i < r->elements; ++i) {
        auto* entry = r->element[i];
        if (entry->type != REDIS_REPLY_ARRAY || entry->elements != 2)
          continue;
        it->second.read_from =
            "(" + std::string(entry->element[0]->str, entry->element[0]->len);
        auto read = store::read_history_entry(store::reply_view{entry->element[1]});
        if (!read || read->kind == "lost") // an edit that never was the book's
          continue;
        arrived.insert(arrived.end(), read->uids.begin(), read->uids.end());
      }
    }
    it->second.reading = false;
    // Each resolve calls back into the scenario, which may add watches or
    // drop them all: the watch is looked up again after each.
    for (const auto& uid : arrived) {
      it = watches_.find(key);
      if (it == watches_.end())
        return;
      if (it->second.count_seen)
        it->second.named.insert(uid);
      resolve_uid(key, uid, when);
    }
    it = watches_.find(key);
    if (it == watches_.end())
      return;
    resolve_count(key, it->second.named.size(), when);
    it = watches_.find(key);
    if (it == watches_.end() || !it->second.read_again)
      return;
    it->second.read_again = false;
    read_history(c, key, it->second.again_at);
  });
}

void mailbox_watch::resolve_count(const std::string& key, std::size_t have,
                                  clock::time_point when) {
  auto it = watches_.find(key);
  if (it == watches_.end() || !it->second.count_seen || have < it->second.count_target)
    return;
  auto seen = std::move(it->second.count_seen);
  it->second.count_seen = nullptr;
  seen(when);
}

void mailbox_watch::resolve_uid(const std::string& key, const std::string& uid,
                                clock::time_point when) {
  auto it = watches_.find(key);
  if (it == watches_.end())
    return;
  auto& w = it->second;
  for (std::size_t i = 0; i < w.uids.size(); ++i)
    if (w.uids[i].first == uid) {
      auto seen = std::move(w.uids[i].second);
      w.uids.erase(w.uids.begin() + static_cast<std::ptrdiff_t>(i));
      w.ordinals.erase(w.ordinals.begin() + static_cast<std::ptrdiff_t>(i));
      seen(when);
      return;
    }
}

// -- API mode -----------------------------------------------------------------

void mailbox_watch::tick() {
  if (uses_redis())
    return;
  auto now = clock::now();
  if (now < next_poll_)
    return;
  next_poll_ = now + poll_;
  for (auto& [key, w] : watches_) {
    if (w.polling || (w.uids.empty() && !w.count_seen))
      continue;
    w.polling = true;
    http_.submit({"POST", w.update_url, "", "", w.token}, [this,
                                                           key = key](http_response&& r) {
      auto it = watches_.find(key);
      if (it == watches_.end())
        return;
      auto& w = it->second;
      w.polling = false;
      if (r.status != 200)
        return; // shed or failed: the next interval asks again
      auto j = nlohmann::json::parse(r.body, nullptr, false);
      if (j.is_discarded())
        return;
      auto have = j.value("added", std::size_t{0}) + j.value("changed", std::size_t{0}) +
                  j.value("removed", std::size_t{0});
      resolve_count(key, have, r.done);
      std::vector<std::string> arrived;
      for (std::size_t i = 0; i < w.uids.size(); ++i)
        if (w.ordinals[i] <= have)
          arrived.push_back(w.uids[i].first);
      for (const auto& uid : arrived)
        resolve_uid(key, uid, r.done);
    });
  }
}

} // namespace simsync::load
