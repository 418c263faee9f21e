#pragma once

// How far replication to each peer carrier is behind: written by the peer
// links, read by the gateway. The outbox is durable, so a node offered more
// shared uploads than it can replicate would otherwise queue them in Redis
// without bound; the gateway sheds shared uploads instead while a link that
// is up is further behind than its limit. Safe to use from any thread.
// An entry's time is Redis's (its stream id) and "now" this host's: the two
// clocks are assumed in step (NTP), as for the lag the node reports; an entry
// stamped ahead of this host's clock counts as not behind.

#include <caf/error.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simsync {

class replication_backlog {
public:
  /// One slot per peer carrier, in the configuration's order.
  explicit replication_backlog(std::vector<std::string> peers);

  /// The link to peer `link` is up and its oldest unacknowledged entry was
  /// written at `unix_ms` (0: nothing waits). The time, not an age, so that a
  /// window stuck at a slow peer is seen falling further behind.
  void waiting_since(std::size_t link, std::uint64_t unix_ms);
  /// The link to peer `link` is down: its peer is away, not slow, and the
  /// outbox keeps what it is owed until it returns, so it sheds nothing.
  void down(std::size_t link);

  struct worst_link {
    std::string peer; ///< empty when no link that is up is behind
    std::uint64_t lag_ms = 0;
  };
  /// The link that is up and furthest behind at `now_unix_ms`.
  worst_link furthest_behind(std::uint64_t now_unix_ms) const;

  /// How long a refused phone should wait before it sends its book again:
  /// the lag's excess over the limit (at least a second, at most
  /// max_retry_after). The entries beyond the limit were written over that
  /// time, and while they came about as fast as the link drains them (what
  /// put it behind) they take about as long to drain: a phone told to come
  /// back sooner sends its whole book only to be refused again.
  static std::chrono::milliseconds retry_after(std::uint64_t lag_ms,
                                               std::chrono::milliseconds limit);
  static constexpr std::chrono::milliseconds max_retry_after{10'000};

  /// Why a shared change is refused at `now_unix_ms` with the given limit
  /// (zero: never), as the error a refused shared write answers
  /// (ec::replication_behind: the reason, then retry_after in ms as text),
  /// or none when it may be taken.
  caf::error refusal(std::chrono::milliseconds limit, std::uint64_t now_unix_ms) const;
  /// The same now.
  caf::error refusal_now(std::chrono::milliseconds limit) const;

private:
  static constexpr std::uint64_t link_down = UINT64_MAX;
  std::vector<std::string> peers_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> oldest_ms_;
};

} // namespace simsync
