#pragma once
// When does a change become visible in a line's pending mailbox?
//
// A line's mailbox is read from its account's history (store/lua/lib.lua,
// read_pending): a change is in it once the account's shared store at the
// line's carrier took it, which the same script notes in the history stream
// (`history:{idcode}`, store/keys.hpp). With the Redis addresses of the
// deployment (tools/cluster status lists them), the watch subscribes to
// keyspace notifications of those streams on every node's redis-server: it
// sets `notify-keyspace-events` to include K and t for the run (the old
// value comes back at the end) and PSUBSCRIBEs `__keyspace@0__:history:*`.
// An `xadd` event on a watched stream is the moment the mailbox changed: the
// write of the peer's Lua script (F4) that ends the whole path PUT -> gateway
// -> shard -> outbox -> peer_link -> peer federation -> peer shard ->
// mailbox. To learn which changes arrived, the watch reads the entries added
// since it last looked (XRANGE), unless only one change is in flight to that
// mailbox: then this write is it. It never calls the API, so measuring does
// not double the gateways' load; the price is one pattern-matched publish
// per history entry in each Redis and a few cheap reads, small next to the
// Lua scripts.
//
// Without Redis addresses or a carrier's keyring file (e.g. a deployment
// whose redis is not reachable from here) it polls POST /v1/lines/{msisdn}/update of each
// watched line every `poll` interval instead; the interval (plus one round trip) is then
// the resolution, and it says so (resolution_ms()).

#include "load/deployment.hpp"
#include "load/http_client.hpp"
#include "load/population.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace simsync::load {

class mailbox_watch {
public:
  using seen_fn = std::function<void(clock::time_point)>;

  /// Redis notifications when `use_redis` and the deployment lists every
  /// carrier's Redis and keyring file; API polling every `poll` otherwise. Throws when a
  /// Redis server cannot be reached or configured.
  mailbox_watch(const deployment& d, http_driver& http, std::chrono::milliseconds poll,
                bool use_redis);
  ~mailbox_watch();
  mailbox_watch(const mailbox_watch&) = delete;
  mailbox_watch& operator=(const mailbox_watch&) = delete;

  bool uses_redis() const { return !conns_.empty(); }
  /// "redis keyspace notifications" or "API polling every N ms".
  std::string method() const;
  /// 0 for notifications (event-driven); the poll interval otherwise.
  double resolution_ms() const;

  /// Calls `seen` once (when) the line's mailbox holds at least `count` entries.
  void watch_count(const person& p, const line& l, std::size_t count, seen_fn seen);
  /// Calls `seen` once (when) the mailbox holds `uid`. `ordinal` is how many
  /// entries the mailbox holds once it arrived (used only when polling the
  /// API, which sees counts, not uids: it credits uids in the order watched).
  void watch_uid(const person& p, const line& l, const std::string& uid,
                 std::size_t ordinal, seen_fn seen);
  /// Stops watching a uid (its upload was shed: it will never arrive).
  void forget_uid(const line& l, const std::string& uid);
  /// Drops every watch.
  void clear();
  /// How many watches wait for their change.
  std::size_t waiting() const;

  /// Polls the API when in that mode; call from the scenario's loop.
  void tick();

private:
  struct key_watch {
    std::string carrier; ///< the line's
    std::string history; ///< its account's history stream there
    /// XRANGE's start for the next read: entries after what was read, or
    /// since the watch started (a stream id from the time then).
    std::string read_from;
    bool reading = false;    ///< an XRANGE is in flight
    bool read_again = false; ///< an event came while it was
    clock::time_point again_at{};
    std::unordered_set<std::string> named; ///< uids the count watch saw
    std::size_t count_target = 0;
    seen_fn count_seen;
    std::vector<std::pair<std::string, seen_fn>> uids;
    std::vector<std::size_t> ordinals; ///< parallel to uids (API mode)
    std::string update_url;            ///< API mode
    std::string token;                 ///< API mode
    bool polling = false;              ///< a POST /update is in flight
  };
  struct redis_conn;

  key_watch& entry(const person& p, const line& l);
  /// Reads from now on: what the history held before is not watched.
  static void start_reading_now(key_watch& w);
  void on_event(redis_conn& c, const std::string& stream, clock::time_point when);
  void read_history(redis_conn& c, const std::string& key, clock::time_point when);
  void command(redis_conn& c, std::vector<std::string> args,
               std::function<void(void*)> on_reply);
  void read_replies(redis_conn& c);
  void read_events(redis_conn& c);
  void resolve_count(const std::string& key, std::size_t have, clock::time_point when);
  void resolve_uid(const std::string& key, const std::string& uid,
                   clock::time_point when);

  http_driver& http_;
  std::chrono::milliseconds poll_;
  std::vector<std::unique_ptr<redis_conn>> conns_;
  /// By line ("<carrier> <line id>").
  std::unordered_map<std::string, key_watch> watches_;
  /// "<carrier> <history stream>" -> the watched lines' keys in watches_.
  std::unordered_map<std::string, std::vector<std::string>> by_stream_;
  clock::time_point next_poll_{};
};

} // namespace simsync::load
