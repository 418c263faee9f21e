#pragma once

// The states of a peer link and what moves it between them: pure, without
// Redis or CAF actors, so that every transition is unit-tested
// (tests/unit/actors/link_machine_test.cpp). The actor (actors/peer_link.cpp)
// feeds it what happened and carries out what it answers.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace simsync {

/// Where a link is, as the status reports it: connecting until its first
/// window can go (Redis and every peer node reached), up from then, down after
/// a failure until it is up again.
enum class link_state { connecting, up, down };

/// As the status reports it (actor_status::link_state): "connecting", "up" or
/// "down".
inline const char* to_string(link_state s) {
  switch (s) {
  case link_state::connecting:
    return "connecting";
  case link_state::up:
    return "up";
  case link_state::down:
    return "down";
  }
  return "connecting"; // not reached
}

namespace link_machine {

/// A peer that keeps failing is retried less and less often, but never waits
/// more than a few seconds once it is back.
constexpr auto first_backoff = std::chrono::milliseconds{100};
constexpr auto max_backoff = std::chrono::milliseconds{5000};

enum class phase {
  connecting,  ///< not up yet since the link started
  idle,        ///< up, no window in flight; a tick is on its way
  sending,     ///< windows in flight, then their trims
  backing_off, ///< down; the tick that retries is on its way
};

/// connecting, up (idle or sending) or down (backing off).
link_state reported(phase p);

/// At most this many windows in flight at once. A link waits for a window's
/// acknowledgements before it reads the next, unless the window is large (a
/// large book's batches): while the peer applies it, the batches the store
/// writes meanwhile are read and sent as they come, rather than in one window
/// when the first is done, whose apply was the book's last fifth of a second.
constexpr std::size_t max_windows_in_flight = 4;

/// A window sent and not yet trimmed.
struct flight {
  std::uint64_t window = 0;
  std::size_t awaiting = 0; ///< its answers not in yet
  bool sent = false;        ///< its requests went (window_sent)
  bool large = false;       ///< it held a request's worth of batches or more
};

struct state {
  phase at = phase::connecting;
  /// Numbers the windows, so that answers to an abandoned window are ignored:
  /// the newest window's.
  std::uint64_t window = 0;
  /// The windows in flight, oldest first; trimmed in that order.
  std::vector<flight> flights;
  /// The read under way is a read ahead (action::read_ahead).
  bool reading_ahead = false;
  /// A request of a window in flight failed: once every answer is in, every
  /// window in flight is sent again.
  bool window_failed = false;
  /// Before the next retry; 0 after a window is trimmed.
  std::chrono::milliseconds backoff{0};
  /// Why the link is not up; cleared when it is up again.
  std::string last_error;
};

/// The answers not in yet, over every window in flight.
std::size_t awaiting(const state& s);

/// Whether window `window` is in flight (its answers still count).
bool in_flight(const state& s, std::uint64_t window);

// What happened, fed to step(). The outcome of an action (connect,
// read_outbox, send_window, trim) is the next event.

/// Time to look at the outbox, or to retry.
struct tick {};
/// Redis and every node of the peer reached.
struct connected {};
/// Entries ready to go (0: the outbox is empty, or had nothing new to read
/// ahead).
struct outbox_read {
  std::size_t entries;
};
/// The window went as this many requests (none when no entry of it had a
/// card left to send: it is trimmed as it is).
struct window_sent {
  std::size_t requests;
  /// It held a request's worth of batches or more (window_limits::request_bytes).
  bool large = false;
};
/// A peer node persisted the `entries` of one request of window `window`.
struct acked {
  std::uint64_t window;
  std::size_t entries;
};
/// A request of window `window` to peer node `node` failed.
struct request_failed {
  std::uint64_t window;
  std::size_t node;
  std::string why;
};
/// The window is done with: the outbox is trimmed through its last entry,
/// or reads start after it until a later trim (peer_link.cpp).
struct trimmed {};
/// Connecting, reading the outbox or trimming it failed.
struct failed {
  std::string why;
};
/// A peer node the link was connected to went down.
struct node_down {
  std::string why; ///< the error if this abandons a window in flight
};
/// Window `window` (the oldest in flight) has waited too long for its
/// acknowledgements.
struct ack_overdue {
  std::uint64_t window;
  std::string why;
};

using event = std::variant<tick, connected, outbox_read, window_sent, acked,
                           request_failed, trimmed, failed, node_down, ack_overdue>;

/// The one blocking step the actor takes next; its outcome is the next event.
enum class action {
  none,
  connect,     ///< Redis and every peer node not connected yet
  read_outbox, ///< what the last read left unsent, else the outbox
  read_ahead,  ///< the same, after the newest window in flight, without waiting
  send_window, ///< plan what was read and send it, numbered state::window
  trim,        ///< the outbox through the oldest window's last entry (or later)
};

/// What the actor does after a step, in the order of the fields.
struct effects {
  /// The backlog shows the peer down (it lags until the link is up).
  bool backlog_down = false;
  /// Forget what was read and not sent, and read few entries next: a retry
  /// starts at the outbox's oldest entry, which may be a large batch.
  bool drop_unsent = false;
  /// Reconnect this peer node before the next window.
  std::optional<std::size_t> forget_node;
  /// Entries the peer persisted (counted, and their round trip timed).
  std::size_t acknowledged = 0;
  /// Send the link a tick after this long.
  std::optional<std::chrono::milliseconds> tick_in;
  action then = action::none;
};

struct transition {
  state next;
  effects todo;
};

transition step(state current, const event& what);

} // namespace link_machine

} // namespace simsync
