#pragma once
// The load tool's HTTP client: libcurl's multi interface, so thousands of
// requests share a bounded pool of keep-alive connections on one thread.
// Requests beyond the pool wait in a queue (their wait is part of their
// latency; the scenarios measure from when a request was due). The same
// loop also watches other file descriptors (the Redis subscriptions of
// load/mailbox_watch), so one thread drives everything and every timestamp
// comes from one clock.
//
// The loop is epoll and libcurl's socket interface (curl_multi_socket_action):
// each wake-up costs what the sockets that are ready need. curl_multi_poll
// and curl_multi_perform walked every open connection at every wake-up,
// which made the tool cost more CPU per edit than the server at a few
// hundred connections.

#include "load/schedule.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace simsync::load {

struct http_request {
  std::string method = "GET"; ///< GET, POST, PUT, DELETE
  std::string url;
  std::string body;
  std::string content_type; ///< empty: no Content-Type header
  std::string token;        ///< empty: no Authorization header
};

struct http_response {
  long status = 0;   ///< 0 when the transfer failed (see error)
  std::string error; ///< libcurl's message for a failed transfer
  std::string body;
  double retry_after_s = 0;  ///< Retry-After of a 503 or 429, in seconds; 0 if none
  clock::time_point started; ///< when the transfer got a connection slot
  clock::time_point done;    ///< when the whole answer had arrived

  /// When a phone would retry a 503 or 429: after its Retry-After (1 s if none).
  clock::time_point retry_at() const {
    auto wait = std::chrono::duration<double>(retry_after_s > 0 ? retry_after_s : 1.0);
    return done + std::chrono::duration_cast<clock::duration>(wait);
  }
};

using http_callback = std::function<void(http_response&&)>;

class http_driver {
public:
  /// At most `connections` transfers (and connections) at once.
  explicit http_driver(std::size_t connections);
  ~http_driver();
  http_driver(const http_driver&) = delete;
  http_driver& operator=(const http_driver&) = delete;

  /// Starts the request as soon as a connection is free; `done` runs on the
  /// driver's thread, inside poll(), once the answer is in.
  void submit(http_request request, http_callback done);
  /// Submits the request at `when` (e.g. a retry after a 503's Retry-After).
  void submit_at(clock::time_point when, http_request request, http_callback done);

  /// Calls `on_readable` from poll() whenever `fd` is readable.
  void watch_fd(int fd, std::function<void()> on_readable);
  void unwatch_fd(int fd);

  /// Runs transfers, timers and fd callbacks for at most `max_wait` (returns
  /// earlier when something happened). The wait is to the microsecond: an
  /// open-loop schedule sleeps until its next request is due, never spins.
  void poll(clock::duration max_wait);
  /// Polls until nothing is in flight, queued or delayed, or `deadline`
  /// passes; true when idle.
  bool run_until_idle(clock::time_point deadline);

  std::size_t in_flight() const { return active_; }
  std::size_t queued() const { return queue_.size() + delayed_.size(); }
  std::uint64_t completed() const { return completed_; }

private:
  struct transfer;
  void start_queued();
  void start(std::unique_ptr<transfer> t);
  void harvest();
  /// libcurl's callbacks: which sockets to watch, and when to call it back.
  static int on_socket(void* easy, int socket, int what, void* self, void* socket_data);
  static int on_timer(void* multi, long timeout_ms, void* self);
  /// Lets libcurl act on a ready socket (or its timeout, CURL_SOCKET_TIMEOUT).
  void act(int socket, int events);

  void* multi_ = nullptr;
  int epoll_ = -1;
  /// When libcurl wants to be called back (its timeouts); max() when never.
  clock::time_point curl_due_ = clock::time_point::max();
  std::size_t connections_;
  std::size_t active_ = 0;
  std::uint64_t completed_ = 0;
  std::deque<std::unique_ptr<transfer>> queue_;
  std::multimap<clock::time_point, std::unique_ptr<transfer>> delayed_;
  std::vector<void*> idle_handles_;
  std::map<int, std::function<void()>> fds_;
};

/// Percent-encodes a path segment ("+86..." -> "%2B86...").
std::string url_escape(const std::string& segment);

} // namespace simsync::load
