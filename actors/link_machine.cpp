#include "actors/link_machine.hpp"

#include <algorithm>
#include <utility>

namespace simsync::link_machine {

namespace {

/// Any failure resends every window in flight: the peer's apply is
/// idempotent, and only a fully acknowledged window may be trimmed.
void fail(state& s, effects& todo, std::string why) {
  if (s.at == phase::sending) {
    ++s.window; // answers still on their way are ignored
    s.flights.clear();
    s.reading_ahead = false;
  }
  s.at = phase::backing_off;
  s.last_error = std::move(why);
  s.backoff = std::min(max_backoff, std::max(first_backoff, s.backoff * 2));
  todo.backlog_down = true;
  todo.drop_unsent = true;
  todo.tick_in = s.backoff;
}

/// What the windows in flight call for next: the oldest's trim once it is
/// answered; after a failure, the resend once every answer is in; else, while
/// the newest is large and there is room, a look for what came after it.
void settle(state& s, effects& todo) {
  if (s.window_failed) {
    if (awaiting(s) == 0)
      fail(s, todo, s.last_error);
    return;
  }
  const auto& oldest = s.flights.front();
  if (oldest.sent && oldest.awaiting == 0) {
    todo.then = action::trim;
    return;
  }
  const auto& newest = s.flights.back();
  if (newest.sent && newest.large && s.flights.size() < max_windows_in_flight) {
    s.reading_ahead = true;
    todo.then = action::read_ahead;
  }
}

/// Window `window` among those in flight, sent (its answers count); null if
/// it is not (abandoned, trimmed, or never numbered).
template <class State>
auto find(State& s, std::uint64_t window) -> decltype(&s.flights.front()) {
  if (s.at != phase::sending)
    return nullptr;
  for (auto& f : s.flights)
    if (f.window == window && f.sent)
      return &f;
  return nullptr;
}

/// One more answer of window `f` is in.
void answered(state& s, effects& todo, flight& f) {
  --f.awaiting;
  settle(s, todo);
}

void on(state& s, effects& todo, const tick&) {
  // Windows in flight end with their own tick (after the trim or the backoff).
  if (s.at != phase::sending)
    todo.then = action::connect;
}

void on(state& s, effects& todo, const connected&) {
  if (s.at == phase::sending)
    return;
  if (s.at != phase::idle)
    s.last_error.clear();
  s.at = phase::idle;
  todo.then = action::read_outbox;
}

/// A new window, numbered next, for what was read.
void open_window(state& s, effects& todo) {
  s.flights.push_back({++s.window});
  todo.then = action::send_window;
}

void on(state& s, effects& todo, const outbox_read& read) {
  if (s.at == phase::sending && s.reading_ahead) {
    s.reading_ahead = false;
    if (read.entries > 0)
      open_window(s, todo); // else the answers in flight move it on
    return;
  }
  if (s.at != phase::idle)
    return;
  if (read.entries == 0) {
    // The read already waited a while for an entry to arrive.
    todo.tick_in = std::chrono::milliseconds{0};
    return;
  }
  s.at = phase::sending;
  s.window_failed = false;
  open_window(s, todo);
}

void on(state& s, effects& todo, const window_sent& sent) {
  if (s.at != phase::sending || s.flights.empty() || s.flights.back().sent)
    return;
  auto& newest = s.flights.back();
  newest.sent = true;
  newest.awaiting = sent.requests;
  newest.large = sent.large;
  if (sent.requests == 0) // nothing in it left to send: done as it is
    settle(s, todo);
}

void on(state& s, effects& todo, const acked& ack) {
  auto* f = find(s, ack.window);
  if (!f)
    return;
  todo.acknowledged = ack.entries;
  answered(s, todo, *f);
}

void on(state& s, effects& todo, const request_failed& failure) {
  auto* f = find(s, failure.window);
  if (!f)
    return;
  // The other requests in flight may still be persisted: waiting for them
  // keeps the resend from overtaking them at their nodes.
  s.window_failed = true;
  s.last_error = failure.why;
  todo.forget_node = failure.node;
  answered(s, todo, *f);
}

void on(state& s, effects& todo, const trimmed&) {
  if (s.at != phase::sending || s.flights.empty())
    return;
  s.flights.erase(s.flights.begin());
  s.backoff = std::chrono::milliseconds{0};
  if (!s.flights.empty()) {
    settle(s, todo);
    return;
  }
  s.at = phase::idle;
  todo.tick_in = std::chrono::milliseconds{0};
}

void on(state& s, effects& todo, const failed& failure) {
  fail(s, todo, failure.why);
}

void on(state& s, effects& todo, const node_down& down) {
  // CAF 0.17 may drop requests to a node that died without answering them:
  // give up the window now rather than at the ack timeout, and resend it.
  if (s.at == phase::sending) {
    fail(s, todo, down.why);
    return;
  }
  s.at = phase::backing_off; // the tick on its way reconnects
  todo.backlog_down = true;
}

void on(state& s, effects& todo, const ack_overdue& overdue) {
  // Its requests may never be answered (a peer that holds the connection
  // but does not answer): give the windows up and resend them, as on a node
  // gone down.
  if (!find(s, overdue.window))
    return;
  fail(s, todo, overdue.why);
}

} // namespace

std::size_t awaiting(const state& s) {
  std::size_t n = 0;
  for (const auto& f : s.flights)
    n += f.awaiting;
  return n;
}

bool in_flight(const state& s, std::uint64_t window) {
  return find(s, window) != nullptr;
}

link_state reported(phase p) {
  switch (p) {
  case phase::connecting:
    return link_state::connecting;
  case phase::idle:
  case phase::sending:
    return link_state::up;
  case phase::backing_off:
    return link_state::down;
  }
  return link_state::connecting; // not reached
}

transition step(state current, const event& what) {
  transition out{std::move(current), {}};
  std::visit([&out](const auto& e) { on(out.next, out.todo, e); }, what);
  return out;
}

} // namespace simsync::link_machine
