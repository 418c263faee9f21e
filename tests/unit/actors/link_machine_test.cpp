// The states of a peer link (actors/link_machine.hpp): every transition, the
// backoff, and which answers still count.
#include "actors/link_machine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace simsync {
namespace {

using namespace link_machine;
using ms = std::chrono::milliseconds;

/// A link's machine, stepped event by event as the actor does.
struct machine {
  state s;

  effects feed(const event& what) {
    auto t = step(s, what);
    s = t.next;
    return t.todo;
  }

  /// From connecting, backing off or idle to idle.
  void up() {
    feed(tick{});
    feed(connected{});
  }

  /// From idle: a window of `requests` requests in flight.
  void send(std::size_t requests) {
    feed(outbox_read{requests * 2});
    feed(window_sent{requests});
  }

  /// From idle: a large window (a large book's batches) of `requests`
  /// requests in flight.
  void send_large(std::size_t requests) {
    feed(outbox_read{requests});
    feed(window_sent{requests, true});
  }

  /// The read ahead under way found `entries`, sent as `requests` (large).
  effects read_ahead(std::size_t entries, std::size_t requests) {
    auto e = feed(outbox_read{entries});
    if (e.then != action::send_window)
      return e;
    return feed(window_sent{requests, true});
  }

  /// From anywhere but sending: down after a failure to connect.
  effects fail_to_connect() {
    feed(tick{});
    return feed(failed{"cannot reach carrier-b"});
  }
};

bool nothing(const effects& e) {
  return !e.backlog_down && !e.drop_unsent && !e.forget_node && e.acknowledged == 0 &&
         !e.tick_in && e.then == action::none;
}

bool same(const state& a, const state& b) {
  auto same_flights = a.flights.size() == b.flights.size() &&
                      std::equal(a.flights.begin(), a.flights.end(), b.flights.begin(),
                                 [](const flight& x, const flight& y) {
                                   return x.window == y.window &&
                                          x.awaiting == y.awaiting && x.sent == y.sent &&
                                          x.large == y.large;
                                 });
  return a.at == b.at && a.window == b.window && same_flights &&
         a.reading_ahead == b.reading_ahead && a.window_failed == b.window_failed &&
         a.backoff == b.backoff && a.last_error == b.last_error;
}

/// What every failure does: down, retried after `backoff`, from the outbox's start.
void expect_backing_off(const machine& m, const effects& e, ms backoff) {
  EXPECT_EQ(m.s.at, phase::backing_off);
  EXPECT_EQ(m.s.backoff, backoff);
  EXPECT_EQ(awaiting(m.s), 0u);
  EXPECT_TRUE(e.backlog_down);
  EXPECT_TRUE(e.drop_unsent);
  EXPECT_EQ(e.tick_in, backoff);
  EXPECT_EQ(e.then, action::none);
}

TEST(link_machine, starts_connecting_and_a_tick_connects) {
  machine m;
  EXPECT_EQ(m.s.at, phase::connecting);
  auto e = m.feed(tick{});
  EXPECT_EQ(e.then, action::connect);
  EXPECT_FALSE(e.tick_in);
  EXPECT_EQ(m.s.at, phase::connecting);
}

TEST(link_machine, once_connected_it_is_up_and_reads_the_outbox) {
  machine m;
  m.feed(tick{});
  auto e = m.feed(connected{});
  EXPECT_EQ(m.s.at, phase::idle);
  EXPECT_EQ(e.then, action::read_outbox);
  EXPECT_FALSE(e.tick_in);
}

TEST(link_machine, an_empty_outbox_is_looked_at_again_at_once) {
  machine m;
  m.up();
  auto e = m.feed(outbox_read{0});
  EXPECT_EQ(m.s.at, phase::idle);
  EXPECT_EQ(m.s.window, 0u);
  EXPECT_EQ(e.tick_in, ms{0});
  EXPECT_EQ(e.then, action::none);
  EXPECT_EQ(m.feed(tick{}).then, action::connect); // reconnects whatever went down
}

TEST(link_machine, entries_go_as_a_new_numbered_window) {
  machine m;
  m.up();
  auto e = m.feed(outbox_read{5});
  EXPECT_EQ(m.s.at, phase::sending);
  EXPECT_EQ(m.s.window, 1u);
  EXPECT_EQ(e.then, action::send_window);
  EXPECT_FALSE(e.tick_in);
  EXPECT_TRUE(nothing(m.feed(window_sent{3})));
  EXPECT_EQ(awaiting(m.s), 3u);
}

TEST(link_machine, a_window_with_no_card_left_to_send_is_trimmed_at_once) {
  machine m;
  m.up();
  m.feed(outbox_read{2});
  auto e = m.feed(window_sent{0});
  EXPECT_EQ(e.then, action::trim);
  EXPECT_EQ(awaiting(m.s), 0u);
  e = m.feed(trimmed{});
  EXPECT_EQ(m.s.at, phase::idle);
  EXPECT_EQ(e.tick_in, ms{0});
}

TEST(link_machine, a_tick_while_a_window_is_in_flight_does_nothing) {
  machine m;
  m.up();
  m.send(2);
  auto before = m.s;
  EXPECT_TRUE(nothing(m.feed(tick{})));
  EXPECT_TRUE(same(m.s, before));
}

TEST(link_machine, the_last_ack_trims_the_window_and_the_link_looks_again) {
  machine m;
  m.up();
  m.send(2);
  auto e = m.feed(acked{1, 3});
  EXPECT_EQ(e.acknowledged, 3u);
  EXPECT_EQ(e.then, action::none);
  EXPECT_EQ(awaiting(m.s), 1u);
  e = m.feed(acked{1, 1});
  EXPECT_EQ(e.acknowledged, 1u);
  EXPECT_EQ(e.then, action::trim);
  EXPECT_EQ(m.s.at, phase::sending);
  e = m.feed(trimmed{});
  EXPECT_EQ(m.s.at, phase::idle);
  EXPECT_EQ(e.tick_in, ms{0});
  EXPECT_EQ(e.then, action::none);
  EXPECT_FALSE(e.backlog_down);
  EXPECT_FALSE(e.drop_unsent);
}

TEST(link_machine, a_failed_request_fails_the_window_once_every_answer_is_in) {
  machine m;
  m.up();
  m.send(3);
  auto e = m.feed(request_failed{1, 1, "request timed out"});
  EXPECT_EQ(m.s.at, phase::sending); // still up: the other requests may land
  EXPECT_EQ(e.forget_node, 1u);
  EXPECT_EQ(m.s.last_error, "request timed out");
  EXPECT_FALSE(e.backlog_down);
  EXPECT_FALSE(e.tick_in);
  EXPECT_EQ(e.then, action::none);
  e = m.feed(acked{1, 2});
  EXPECT_EQ(e.acknowledged, 2u);
  EXPECT_EQ(m.s.at, phase::sending);
  EXPECT_FALSE(e.tick_in);
  e = m.feed(acked{1, 2}); // the last answer: resend, never trim
  EXPECT_EQ(e.acknowledged, 2u);
  expect_backing_off(m, e, first_backoff);
  EXPECT_EQ(m.s.last_error, "request timed out");
}

TEST(link_machine, the_last_answer_failing_fails_the_window_and_forgets_its_node) {
  machine m;
  m.up();
  m.send(2);
  m.feed(acked{1, 1});
  auto e = m.feed(request_failed{1, 0, "node gone"});
  EXPECT_EQ(e.forget_node, 0u);
  expect_backing_off(m, e, first_backoff);
  EXPECT_EQ(m.s.last_error, "node gone");
}

TEST(link_machine, backoff_doubles_from_100_ms_up_to_5_s) {
  machine m;
  std::vector<ms> waits;
  for (int i = 0; i < 9; ++i)
    waits.push_back(*m.fail_to_connect().tick_in);
  EXPECT_EQ(waits, (std::vector<ms>{ms{100}, ms{200}, ms{400}, ms{800}, ms{1600},
                                    ms{3200}, ms{5000}, ms{5000}, ms{5000}}));
  EXPECT_EQ(m.s.at, phase::backing_off);
}

TEST(link_machine, a_trimmed_window_resets_the_backoff) {
  machine m;
  for (int i = 0; i < 3; ++i)
    m.fail_to_connect();
  ASSERT_EQ(m.s.backoff, ms{400});
  m.up();
  m.send(1);
  m.feed(acked{1, 2});
  m.feed(trimmed{});
  EXPECT_EQ(m.s.backoff, ms{0});
  EXPECT_EQ(m.fail_to_connect().tick_in, first_backoff);
}

TEST(link_machine, being_up_again_without_a_trimmed_window_keeps_the_backoff) {
  machine m;
  m.fail_to_connect();
  m.up();
  m.feed(outbox_read{0});
  EXPECT_EQ(m.fail_to_connect().tick_in, ms{200});
}

TEST(link_machine, failing_to_connect_leaves_it_down_with_the_reason) {
  machine m;
  auto e = m.fail_to_connect();
  expect_backing_off(m, e, first_backoff);
  EXPECT_EQ(m.s.last_error, "cannot reach carrier-b");
  EXPECT_EQ(m.feed(tick{}).then, action::connect);
}

TEST(link_machine, failing_to_read_the_outbox_backs_off) {
  machine m;
  m.up();
  auto e = m.feed(failed{"redis: connection lost"});
  expect_backing_off(m, e, first_backoff);
  EXPECT_EQ(m.s.last_error, "redis: connection lost");
}

TEST(link_machine, failing_to_trim_backs_off_and_resends_the_window) {
  machine m;
  m.up();
  m.send(1);
  ASSERT_EQ(m.feed(acked{1, 1}).then, action::trim);
  auto e = m.feed(failed{"redis: connection lost"});
  expect_backing_off(m, e, first_backoff);
  m.up();
  EXPECT_EQ(m.feed(outbox_read{1}).then, action::send_window);
}

TEST(link_machine, being_up_again_clears_the_reason) {
  machine m;
  m.fail_to_connect();
  m.feed(tick{});
  m.feed(connected{});
  EXPECT_EQ(m.s.at, phase::idle);
  EXPECT_EQ(m.s.last_error, "");
}

TEST(link_machine, a_node_down_mid_window_abandons_it) {
  machine m;
  m.up();
  m.send(2);
  m.feed(acked{1, 1});
  auto e = m.feed(node_down{"a node of carrier-b went down with a window in flight"});
  expect_backing_off(m, e, first_backoff);
  EXPECT_EQ(m.s.last_error, "a node of carrier-b went down with a window in flight");
  EXPECT_NE(m.s.window, 1u);
}

TEST(link_machine, an_overdue_window_is_given_up_without_waiting_for_its_answers) {
  machine m;
  m.up();
  m.send(3);
  m.feed(acked{1, 1}); // one of three requests answered; two never will be
  auto e = m.feed(ack_overdue{1, "no acknowledgement from carrier-b in 60 s"});
  expect_backing_off(m, e, first_backoff);
  EXPECT_EQ(m.s.last_error, "no acknowledgement from carrier-b in 60 s");
  EXPECT_NE(m.s.window, 1u);
  EXPECT_TRUE(nothing(m.feed(acked{1, 1}))); // a late answer changes nothing
}

TEST(link_machine, a_node_down_while_idle_marks_it_down_until_the_pending_tick) {
  machine m;
  m.up();
  m.feed(outbox_read{0}); // a tick is on its way
  auto e = m.feed(node_down{"unused"});
  EXPECT_EQ(m.s.at, phase::backing_off);
  EXPECT_TRUE(e.backlog_down);
  EXPECT_FALSE(e.drop_unsent); // nothing was sent: what was read stays in order
  EXPECT_FALSE(e.tick_in);
  EXPECT_EQ(e.then, action::none);
  EXPECT_EQ(m.s.backoff, ms{0});
  EXPECT_EQ(m.s.last_error, "");
  m.up();
  EXPECT_EQ(m.s.at, phase::idle);
}

TEST(link_machine, answers_to_an_abandoned_window_are_ignored) {
  machine m;
  m.up();
  m.send(2);
  auto abandoned = m.s.window;
  m.feed(node_down{"a node went down"});
  auto down = m.s;
  EXPECT_TRUE(nothing(m.feed(acked{abandoned, 5})));
  EXPECT_TRUE(nothing(m.feed(request_failed{abandoned, 0, "late"})));
  EXPECT_TRUE(same(m.s, down));

  // Nor do they count against the window sent again.
  m.up();
  m.send(1);
  auto resent = m.s;
  EXPECT_NE(resent.window, abandoned);
  EXPECT_TRUE(nothing(m.feed(acked{abandoned, 5})));
  EXPECT_TRUE(nothing(m.feed(request_failed{abandoned, 0, "late"})));
  EXPECT_TRUE(same(m.s, resent));
  EXPECT_EQ(m.feed(acked{resent.window, 2}).then, action::trim);
}

TEST(link_machine, answers_and_overdue_looks_after_the_window_was_trimmed_are_ignored) {
  machine m;
  m.up();
  m.send(1);
  m.feed(acked{1, 1});
  m.feed(trimmed{});
  auto idle = m.s;
  EXPECT_TRUE(nothing(m.feed(acked{1, 1})));
  EXPECT_TRUE(nothing(m.feed(ack_overdue{1, "late"})));
  EXPECT_TRUE(same(m.s, idle));
  // Nor does an older window's look count against the next one.
  m.send(1);
  auto sending = m.s;
  EXPECT_TRUE(nothing(m.feed(ack_overdue{1, "late"})));
  EXPECT_TRUE(same(m.s, sending));
}

TEST(link_machine, outcomes_out_of_turn_change_nothing) {
  machine m;
  m.up();
  auto idle = m.s;
  EXPECT_TRUE(nothing(m.feed(window_sent{2})));
  EXPECT_TRUE(nothing(m.feed(trimmed{})));
  EXPECT_TRUE(same(m.s, idle));
  m.send(2);
  auto sending = m.s;
  EXPECT_TRUE(nothing(m.feed(connected{})));
  EXPECT_TRUE(nothing(m.feed(outbox_read{4})));       // no read ahead was asked for
  EXPECT_TRUE(nothing(m.feed(window_sent{3, true}))); // it went already
  EXPECT_TRUE(same(m.s, sending));
}

TEST(link_machine, a_small_window_waits_for_its_acks_before_reading_on) {
  machine m;
  m.up();
  m.send(3);
  EXPECT_EQ(m.feed(acked{1, 2}).then, action::none);
  EXPECT_EQ(m.feed(acked{1, 2}).then, action::none);
  EXPECT_FALSE(m.s.reading_ahead);
  EXPECT_EQ(m.s.flights.size(), 1u);
}

TEST(link_machine, a_large_window_reads_ahead_as_its_requests_are_acknowledged) {
  machine m;
  m.up();
  m.send_large(3);
  auto e = m.feed(acked{1, 1});
  EXPECT_EQ(e.acknowledged, 1u);
  EXPECT_EQ(e.then, action::read_ahead);
  EXPECT_TRUE(m.s.reading_ahead);
  e = m.feed(outbox_read{2}); // what the store wrote meanwhile
  EXPECT_EQ(e.then, action::send_window);
  EXPECT_FALSE(m.s.reading_ahead);
  EXPECT_EQ(m.s.window, 2u);
  ASSERT_EQ(m.s.flights.size(), 2u);
  e = m.feed(window_sent{1, true});
  EXPECT_EQ(e.then, action::none); // nothing acked since: no read
  EXPECT_EQ(awaiting(m.s), 3u);
  EXPECT_EQ(m.s.at, phase::sending);
}

TEST(link_machine, a_read_ahead_that_finds_nothing_waits_for_the_next_answer) {
  machine m;
  m.up();
  m.send_large(3);
  m.feed(acked{1, 1});
  auto before_read = m.s.window;
  EXPECT_TRUE(nothing(m.read_ahead(0, 0)));
  EXPECT_FALSE(m.s.reading_ahead);
  EXPECT_EQ(m.s.window, before_read);
  EXPECT_EQ(m.s.flights.size(), 1u);
  EXPECT_EQ(m.feed(acked{1, 1}).then, action::read_ahead);
}

TEST(link_machine, windows_are_trimmed_oldest_first_whatever_order_their_acks_come_in) {
  machine m;
  m.up();
  m.send_large(2);
  m.feed(acked{1, 1});
  m.read_ahead(1, 1); // window 2
  // Window 2 is answered first (another node): nothing is trimmed yet.
  auto e = m.feed(acked{2, 1});
  EXPECT_EQ(e.acknowledged, 1u);
  EXPECT_EQ(e.then, action::read_ahead);
  m.read_ahead(0, 0);
  e = m.feed(acked{1, 1});
  EXPECT_EQ(e.then, action::trim); // window 1
  e = m.feed(trimmed{});
  ASSERT_EQ(m.s.flights.size(), 1u);
  EXPECT_EQ(m.s.flights.front().window, 2u);
  EXPECT_EQ(e.then, action::trim); // window 2, answered already
  EXPECT_FALSE(e.tick_in);
  e = m.feed(trimmed{});
  EXPECT_TRUE(m.s.flights.empty());
  EXPECT_EQ(m.s.at, phase::idle);
  EXPECT_EQ(e.tick_in, ms{0});
}

TEST(link_machine, a_trim_with_a_large_window_still_in_flight_reads_ahead) {
  machine m;
  m.up();
  m.send_large(1);
  m.feed(acked{1, 1}); // window 1 done: trimmed before anything is read
  auto e = m.feed(trimmed{});
  EXPECT_TRUE(m.s.flights.empty());
  EXPECT_EQ(e.tick_in, ms{0});

  m.send_large(2);
  m.feed(acked{2, 1});
  m.read_ahead(3, 2); // window 3
  EXPECT_EQ(m.feed(acked{2, 1}).then, action::trim);
  e = m.feed(trimmed{});
  EXPECT_EQ(e.then, action::read_ahead);
  EXPECT_FALSE(e.tick_in);
}

TEST(link_machine, no_more_than_the_maximum_of_windows_is_in_flight) {
  machine m;
  m.up();
  m.send_large(max_windows_in_flight + 1);
  for (std::size_t i = 1; i < max_windows_in_flight; ++i) {
    ASSERT_EQ(m.feed(acked{1, 1}).then, action::read_ahead);
    m.read_ahead(1, 1);
  }
  EXPECT_EQ(m.s.flights.size(), max_windows_in_flight);
  EXPECT_EQ(m.feed(acked{1, 1}).then, action::none);
  EXPECT_FALSE(m.s.reading_ahead);
}

TEST(link_machine,
     a_failure_with_windows_ahead_resends_them_all_once_every_answer_is_in) {
  machine m;
  m.up();
  m.send_large(2);
  m.feed(acked{1, 1});
  m.read_ahead(1, 1); // window 2
  auto e = m.feed(request_failed{2, 0, "request timed out"});
  EXPECT_EQ(e.forget_node, 0u);
  EXPECT_EQ(m.s.at, phase::sending);
  EXPECT_NE(e.then, action::read_ahead); // nothing more goes after a failure
  e = m.feed(acked{1, 1}); // window 1 is all answered, but must not be trimmed
  EXPECT_EQ(e.acknowledged, 1u);
  expect_backing_off(m, e, first_backoff);
  EXPECT_TRUE(m.s.flights.empty());
  EXPECT_TRUE(nothing(m.feed(acked{2, 1})));
  EXPECT_TRUE(nothing(m.feed(acked{1, 1})));
}

TEST(link_machine, an_overdue_oldest_window_gives_up_every_window_in_flight) {
  machine m;
  m.up();
  m.send_large(2);
  m.feed(acked{1, 1});
  m.read_ahead(1, 1); // window 2
  auto e = m.feed(ack_overdue{1, "no acknowledgement from carrier-b in 60 s"});
  expect_backing_off(m, e, first_backoff);
  EXPECT_TRUE(m.s.flights.empty());
  EXPECT_TRUE(nothing(m.feed(acked{2, 1})));
}

TEST(link_machine, each_phase_reports_its_status_string) {
  EXPECT_STREQ(to_string(reported(phase::connecting)), "connecting");
  EXPECT_STREQ(to_string(reported(phase::idle)), "up");
  EXPECT_STREQ(to_string(reported(phase::sending)), "up");
  EXPECT_STREQ(to_string(reported(phase::backing_off)), "down");
}

TEST(link_state, reports_as_the_status_strings) {
  EXPECT_STREQ(to_string(link_state::connecting), "connecting");
  EXPECT_STREQ(to_string(link_state::up), "up");
  EXPECT_STREQ(to_string(link_state::down), "down");
}

} // namespace
} // namespace simsync
