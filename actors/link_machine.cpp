#include "actors/link_machine.hpp"

#include <algorithm>
#include <utility>

namespace simsync::link_machine {

namespace {

/// Any failure resends the whole window: the peer's apply is idempotent, and
/// only a fully acknowledged window may be trimmed.
void fail(state& s, effects& todo, std::string why) {
  if (s.at == phase::sending) {
    ++s.window; // answers still on their way are ignored
    s.awaiting = 0;
  }
  s.at = phase::backing_off;
  s.last_error = std::move(why);
  s.backoff = std::min(max_backoff, std::max(first_backoff, s.backoff * 2));
  todo.backlog_down = true;
  todo.drop_unsent = true;
  todo.tick_in = s.backoff;
}

/// One more answer of the window is in.
void answered(state& s, effects& todo) {
  if (--s.awaiting > 0)
    return;
  if (s.window_failed)
    fail(s, todo, s.last_error);
  else
    todo.then = action::trim;
}

bool stale(const state& s, std::uint64_t window) {
  return s.at != phase::sending || window != s.window;
}

void on(state& s, effects& todo, const tick&) {
  // A window in flight ends with its own tick (after the trim or the backoff).
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

void on(state& s, effects& todo, const outbox_read& read) {
  if (s.at != phase::idle)
    return;
  if (read.entries == 0) {
    // The read already waited a while for an entry to arrive.
    todo.tick_in = std::chrono::milliseconds{0};
    return;
  }
  s.at = phase::sending;
  ++s.window;
  s.awaiting = 0;
  s.window_failed = false;
  todo.then = action::send_window;
}

void on(state& s, effects& todo, const window_sent& sent) {
  if (s.at != phase::sending)
    return;
  s.awaiting = sent.requests;
  if (sent.requests == 0) // nothing in it left to send: done as it is
    todo.then = action::trim;
}

void on(state& s, effects& todo, const acked& ack) {
  if (stale(s, ack.window))
    return;
  todo.acknowledged = ack.entries;
  answered(s, todo);
}

void on(state& s, effects& todo, const request_failed& failure) {
  if (stale(s, failure.window))
    return;
  // The other requests of the window may still be persisted: waiting for
  // them keeps the resend from overtaking them at their nodes.
  s.window_failed = true;
  s.last_error = failure.why;
  todo.forget_node = failure.node;
  answered(s, todo);
}

void on(state& s, effects& todo, const trimmed&) {
  if (s.at != phase::sending)
    return;
  s.at = phase::idle;
  s.backoff = std::chrono::milliseconds{0};
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
  // but does not answer): give the window up and resend it, as on a node
  // gone down.
  if (stale(s, overdue.window))
    return;
  fail(s, todo, overdue.why);
}

} // namespace

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
