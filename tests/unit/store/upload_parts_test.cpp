// How a large upload is cut into parts, and how the answers to its
// compares decide the parts after them (store/upload_parts.hpp).
#include "store/upload_parts.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace simsync;

namespace {

/// A line's book of `cards` cards; `removals`: it had no rejected card.
store::upload_request request(store::upload_mode mode, int cards, bool removals = false) {
  store::upload_request req;
  req.idcode = "idcode";
  req.line = "bGluZS1pZC1vZi1hLWxpbmU";
  req.token_hash = "proof";
  req.mode = mode;
  for (int i = 0; i < cards; ++i)
    req.cards.push_back(
        {"u" + std::to_string(i), core::content_hash::of(std::to_string(i)),
         "card " + std::to_string(i), static_cast<std::size_t>(i), false});
  req.now_ms = 1700000000000;
  req.guard = {3, 50};
  req.confirm_removals = 4;
  req.allow_removals = removals;
  return req;
}

std::vector<std::string> uids_of(const store::upload_request& part) {
  std::vector<std::string> out;
  for (const auto& card : part.cards)
    out.push_back(card.uid);
  return out;
}

/// Every part the plan hands out now, with at most `ahead` in flight.
std::vector<store::upload_request> take(store::upload_plan& plan, std::size_t ahead = 1) {
  std::vector<store::upload_request> out;
  while (auto part = plan.next(ahead))
    out.push_back(std::move(*part));
  return out;
}

/// A compare's answer.
store::upload_result compared(std::string to_send, std::uint64_t holds,
                              std::uint64_t size,
                              std::vector<std::string> discarded = {}) {
  store::upload_result r;
  r.version = 7;
  r.unchanged = static_cast<std::size_t>(std::count(to_send.begin(), to_send.end(), '0'));
  r.cards_to_send = std::move(to_send);
  r.base_holds = holds;
  r.base_size = size;
  r.discarded = std::move(discarded);
  return r;
}

/// A scan's answer: a page of the uids the line holds, and the next cursor.
store::upload_result scanned(std::vector<std::string> uids, std::string cursor) {
  store::upload_result r;
  r.version = 7;
  r.base_uids = std::move(uids);
  r.scan_cursor = std::move(cursor);
  return r;
}

/// Answers the compares of a 5-card snapshot (compares of 3, deltas of 2)
/// with `to_send`; returns the parts that follow.
std::vector<store::upload_request>
after_compares(store::upload_plan& plan, const std::string& to_send, std::uint64_t holds,
               std::uint64_t size, std::vector<std::string> discarded = {}) {
  auto first = take(plan);
  EXPECT_EQ(first.size(), 1u);
  plan.answered(compared(to_send.substr(0, 3), holds, size, std::move(discarded)));
  auto second = take(plan);
  EXPECT_EQ(second.size(), 1u);
  plan.answered(compared(to_send.substr(3), 0, size));
  return {plan.waiting().begin(), plan.waiting().end()};
}

/// A part counted as the store would: a result of these counts.
store::upload_result counted(std::uint64_t version, std::size_t added,
                             std::size_t changed, std::size_t removed,
                             std::size_t unchanged,
                             std::vector<store::upload_conflict> conflicts = {}) {
  store::upload_result r;
  r.version = version;
  r.added = added;
  r.changed = changed;
  r.removed = removed;
  r.unchanged = unchanged;
  r.conflicts = std::move(conflicts);
  return r;
}

constexpr store::part_sizes small{2, 3, 100, 4};

} // namespace

TEST(upload_parts, an_upload_within_a_part_is_sent_as_it_is) {
  for (auto mode : {store::upload_mode::snapshot, store::upload_mode::delta}) {
    store::upload_plan plan(request(mode, 3), {3, 3, 100});
    auto parts = take(plan, 2);
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].mode, mode);
    EXPECT_EQ(parts[0].cards.size(), 3u);
    EXPECT_FALSE(parts[0].later_part);
  }
  auto removal = request(store::upload_mode::remove, 0);
  removal.uids = {"a", "b", "c", "d"};
  store::upload_plan plan(removal, small);
  auto parts = take(plan);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].uids.size(), 4u);
  EXPECT_FALSE(plan.finished()) << "until it is answered";
  plan.answered({});
  EXPECT_TRUE(plan.finished());
}

TEST(upload_parts, a_snapshot_is_compares_then_its_cards) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5), small);
  const auto& parts = plan.waiting();
  ASSERT_EQ(parts.size(), 5u) << "two compares, three deltas: scans and a prune only "
                                 "once the compares tell they are needed";
  EXPECT_EQ(parts[0].mode, store::upload_mode::compare);
  EXPECT_EQ(uids_of(parts[0]), (std::vector<std::string>{"u0", "u1", "u2"}));
  EXPECT_EQ(parts[1].mode, store::upload_mode::compare);
  EXPECT_EQ(uids_of(parts[1]), (std::vector<std::string>{"u3", "u4"}));
  EXPECT_EQ(parts[1].cards[1].hash, core::content_hash::of("4"));
  for (std::size_t i = 0; i < 2; ++i)
    for (const auto& card : parts[i].cards)
      EXPECT_TRUE(card.card.empty()) << "compares name cards by uid and hash";
  EXPECT_FALSE(parts[0].later_part) << "the first part may be refused for lag";
  EXPECT_TRUE(parts[0].refused_when_behind());
  EXPECT_EQ(uids_of(parts[2]), (std::vector<std::string>{"u0", "u1"}));
  EXPECT_EQ(uids_of(parts[3]), (std::vector<std::string>{"u2", "u3"}));
  EXPECT_EQ(uids_of(parts[4]), (std::vector<std::string>{"u4"}));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    EXPECT_TRUE(parts[i].later_part);
    EXPECT_FALSE(parts[i].refused_when_behind());
  }
  for (std::size_t i = 2; i < parts.size(); ++i)
    EXPECT_EQ(parts[i].mode, store::upload_mode::delta);
  // Every part is the line's request: its account, proof, clock and guard.
  for (const auto& part : parts) {
    EXPECT_EQ(part.idcode, "idcode");
    EXPECT_EQ(part.token_hash, "proof");
    EXPECT_EQ(part.now_ms, 1700000000000u);
    EXPECT_EQ(part.guard.min_cards, 3u);
    EXPECT_EQ(part.confirm_removals, 4u);
    EXPECT_FALSE(part.allow_removals);
  }
  EXPECT_EQ(parts[2].cards[1].card, "card 1");
  EXPECT_EQ(parts[2].cards[1].hash, core::content_hash::of("1"));
}

TEST(upload_parts,
     compares_scans_and_prunes_go_alone_and_deltas_after_the_first_overlap) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5, true), small);
  ASSERT_EQ(take(plan, 3).size(), 1u) << "the first compare";
  EXPECT_FALSE(plan.next(3)) << "nothing more until it is answered";
  plan.answered(compared("111", 0, 6));
  ASSERT_EQ(take(plan, 3).size(), 1u) << "the second compare";
  plan.answered(compared("11", 0, 6));
  auto scan = take(plan, 3);
  ASSERT_EQ(scan.size(), 1u) << "a scan, alone";
  EXPECT_EQ(scan[0].mode, store::upload_mode::scan);
  plan.answered(scanned({"u9"}, "0"));
  auto prune = take(plan, 3);
  ASSERT_EQ(prune.size(), 1u) << "the prune, alone";
  EXPECT_EQ(prune[0].mode, store::upload_mode::prune);
  plan.answered({});
  auto deltas = take(plan, 2);
  ASSERT_EQ(deltas.size(), 2u) << "two deltas at once";
  plan.answered({});
  EXPECT_EQ(take(plan, 2).size(), 1u) << "the third as the first is answered";
  EXPECT_FALSE(plan.finished());
  plan.answered({});
  plan.answered({});
  EXPECT_TRUE(plan.finished());

  store::upload_plan delta(request(store::upload_mode::delta, 5), small);
  EXPECT_EQ(take(delta, 2).size(), 1u) << "the first part alone";
  delta.answered({});
  EXPECT_EQ(take(delta, 2).size(), 2u);
}

TEST(upload_parts, the_deltas_carry_only_the_cards_the_compares_ask_for) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5), small);
  auto rest = after_compares(plan, "01001", 5, 5);
  ASSERT_EQ(rest.size(), 2u) << "no prune: the base holds the 5 uids and no more; then "
                                "u1, then u4: the part of u2, u3 is gone";
  EXPECT_EQ(uids_of(rest[0]), (std::vector<std::string>{"u1"}));
  EXPECT_EQ(rest[0].cards[0].card, "card 1");
  EXPECT_EQ(uids_of(rest[1]), (std::vector<std::string>{"u4"}));
  EXPECT_TRUE(rest[1].later_part);
  EXPECT_EQ(plan.sum().unchanged, 3u) << "counted by the compares";
}

TEST(upload_parts, a_line_holding_more_is_scanned_and_the_prune_names_what_is_left_out) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5, true), small);
  auto rest = after_compares(plan, "00000", 5, 7);
  ASSERT_EQ(rest.size(), 1u) << "a scan alone: every card is held";
  EXPECT_EQ(rest[0].mode, store::upload_mode::scan);
  EXPECT_EQ(rest[0].scan_cursor, "0") << "from the start";
  EXPECT_EQ(rest[0].scan_count, 4u) << "a page of part_sizes::scan_uids";
  EXPECT_TRUE(rest[0].cards.empty());
  EXPECT_TRUE(rest[0].later_part);
  EXPECT_EQ(rest[0].token_hash, "proof");
  ASSERT_EQ(take(plan).size(), 1u);
  plan.answered(scanned({"u0", "u9", "u1"}, "17"));
  auto scan = take(plan);
  ASSERT_EQ(scan.size(), 1u) << "the next page";
  EXPECT_EQ(scan[0].mode, store::upload_mode::scan);
  EXPECT_EQ(scan[0].scan_cursor, "17");
  plan.answered(scanned({"u9", "u8", "u4", "u2", "u3"}, "0"));
  auto prune = take(plan);
  ASSERT_EQ(prune.size(), 1u);
  EXPECT_EQ(prune[0].mode, store::upload_mode::prune);
  EXPECT_EQ(prune[0].uids, (std::vector<std::string>{"u8", "u9"}))
      << "what the line holds and the snapshot leaves out, each once";
  EXPECT_TRUE(prune[0].cards.empty());
  EXPECT_FALSE(plan.finished());
  plan.answered(counted(8, 0, 0, 2, 0));
  EXPECT_TRUE(plan.finished()) << "no card to send";
  EXPECT_EQ(plan.sum().removed, 2u);
  EXPECT_EQ(plan.sum().unchanged, 5u);
}

TEST(upload_parts, scans_that_find_nothing_left_out_send_no_prune) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5, true), small);
  auto rest = after_compares(plan, "11000", 3, 5);
  ASSERT_EQ(rest.size(), 2u) << "a scan, then the delta of u0 and u1";
  take(plan);
  plan.answered(scanned({"u4", "u2", "u3", "u4"}, "0"));
  ASSERT_EQ(plan.waiting().size(), 1u);
  EXPECT_EQ(plan.waiting()[0].mode, store::upload_mode::delta)
      << "what the line held of the snapshot's went since it was compared";
}

TEST(upload_parts,
     the_prune_settles_what_the_line_discarded_and_the_snapshot_leaves_out) {
  store::upload_plan discarded(request(store::upload_mode::snapshot, 5), small);
  auto rest = after_compares(discarded, "00100", 5, 5, {"u2", "u7"});
  ASSERT_EQ(rest.size(), 2u) << "no scan: the line holds no card the snapshot leaves "
                                "out; the prune, then the delta of u2";
  EXPECT_EQ(rest[0].mode, store::upload_mode::prune);
  EXPECT_EQ(rest[0].uids, (std::vector<std::string>{"u7"}))
      << "the delta of u2 settles u2";

  store::upload_plan named(request(store::upload_mode::snapshot, 5), small);
  rest = after_compares(named, "00100", 5, 5, {"u2"});
  ASSERT_EQ(rest.size(), 1u) << "no prune: the snapshot names every discarded card";
  EXPECT_EQ(rest[0].mode, store::upload_mode::delta);

  store::upload_plan both(request(store::upload_mode::snapshot, 5, true), small);
  after_compares(both, "00000", 5, 6, {"u7"});
  take(both);
  both.answered(scanned({"u8", "u0"}, "0"));
  auto prune = take(both);
  ASSERT_EQ(prune.size(), 1u);
  EXPECT_EQ(prune[0].uids, (std::vector<std::string>{"u7", "u8"}));

  store::upload_plan removes_nothing(request(store::upload_mode::snapshot, 5), small);
  EXPECT_TRUE(after_compares(removes_nothing, "00000", 5, 6).empty())
      << "a book with rejected cards removes nothing: no scan, no prune";
}

TEST(upload_parts, an_unchanged_book_is_the_compares_alone) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5), small);
  EXPECT_TRUE(after_compares(plan, "00000", 5, 5).empty());
  EXPECT_TRUE(plan.finished());
  EXPECT_EQ(plan.sum().unchanged, 5u);
  EXPECT_EQ(plan.sum().version, 7u) << "the version the compares read";
}

TEST(upload_parts, a_new_lines_book_is_a_compare_then_every_card) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5), small);
  ASSERT_EQ(take(plan).size(), 1u);
  plan.answered(compared("111", 0, 0));
  auto rest = take(plan, 2);
  ASSERT_EQ(rest.size(), 2u);
  for (const auto& part : rest)
    EXPECT_EQ(part.mode, store::upload_mode::delta)
        << "no second compare (the line holds nothing) and no prune (nothing to remove)";
  EXPECT_EQ(plan.waiting().size(), 1u) << "the third delta: every card is sent";

  store::upload_plan discarded(request(store::upload_mode::snapshot, 5), small);
  rest = after_compares(discarded, "11111", 0, 0, {"u9"});
  ASSERT_EQ(rest.size(), 4u) << "the second compare was asked; the prune settles what "
                                "the line discarded; then every card";
  EXPECT_EQ(rest[0].mode, store::upload_mode::prune);
}

TEST(upload_parts, a_held_prune_ends_the_plan) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5, true), small);
  after_compares(plan, "11111", 0, 9);
  ASSERT_EQ(take(plan).size(), 1u) << "the scan";
  plan.answered(scanned({"u5", "u6", "u7", "u8", "u9", "u10", "u11", "u12", "u13"}, "0"));
  ASSERT_EQ(take(plan).size(), 1u) << "the prune";
  store::upload_result hold;
  hold.would_remove = 9;
  hold.book_size = 9;
  plan.answered(hold);
  EXPECT_TRUE(plan.finished());
  EXPECT_FALSE(plan.next(2)) << "no delta is sent";
  EXPECT_TRUE(plan.sum().held_for_confirmation());
}

TEST(upload_parts, answers_that_do_not_fit_the_cards_send_every_card_and_scan) {
  store::upload_plan plan(request(store::upload_mode::snapshot, 5, true), small);
  auto rest = after_compares(plan, "0000", 5, 5);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest[0].mode, store::upload_mode::scan) << "what the line holds is read";
  std::size_t cards = 0;
  for (std::size_t i = 1; i < rest.size(); ++i)
    cards += rest[i].cards.size();
  EXPECT_EQ(cards, 5u);
}

TEST(upload_parts, a_snapshot_of_more_than_a_small_book_goes_in_parts_within_a_part) {
  constexpr auto most = store::snapshot_compare_above;
  store::upload_plan small_book(request(store::upload_mode::snapshot, most));
  ASSERT_EQ(small_book.waiting().size(), 1u) << "one call";
  EXPECT_EQ(small_book.waiting()[0].mode, store::upload_mode::snapshot);

  store::upload_plan book(request(store::upload_mode::snapshot, most + 1));
  ASSERT_EQ(book.waiting().size(), 2u) << "a compare, a delta";
  EXPECT_EQ(book.waiting()[0].mode, store::upload_mode::compare);
  EXPECT_EQ(book.waiting()[1].mode, store::upload_mode::delta);
  EXPECT_EQ(book.waiting()[1].cards.size(), most + 1);

  store::upload_plan delta(request(store::upload_mode::delta, most + 1));
  ASSERT_EQ(delta.waiting().size(), 1u) << "a delta names no card it does not change";

  store::upload_plan unbounded(request(store::upload_mode::snapshot, most + 1),
                               {0, 0, most, 0});
  ASSERT_EQ(unbounded.waiting().size(), 2u) << "no bound: one compare, one delta";
  EXPECT_EQ(unbounded.waiting()[0].cards.size(), most + 1);
  EXPECT_EQ(unbounded.waiting()[1].cards.size(), most + 1);
}

TEST(upload_parts, a_delta_is_deltas) {
  store::upload_plan plan(request(store::upload_mode::delta, 5), small);
  const auto& parts = plan.waiting();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(uids_of(parts[2]), (std::vector<std::string>{"u4"}));
  EXPECT_FALSE(parts[0].later_part);
  EXPECT_TRUE(parts[0].refused_when_behind());
  for (const auto& part : parts)
    EXPECT_EQ(part.mode, store::upload_mode::delta);
}

TEST(upload_parts, the_parts_results_add_up_and_the_last_version_is_the_answer) {
  store::upload_result sum;
  store::add_part_result(sum, counted(7, 0, 0, 2, 0, {{"u9", "not-held"}}));
  store::add_part_result(sum, counted(8, 2, 1, 0, 3));
  store::add_part_result(sum, counted(9, 1, 0, 0, 1, {{"u8", "changed-since-seen"}}));
  EXPECT_EQ(sum.version, 9u);
  EXPECT_EQ(sum.added, 3u);
  EXPECT_EQ(sum.changed, 1u);
  EXPECT_EQ(sum.removed, 2u);
  EXPECT_EQ(sum.unchanged, 4u);
  ASSERT_EQ(sum.conflicts.size(), 2u);
  EXPECT_EQ(sum.conflicts[1].uid, "u8");
  EXPECT_FALSE(sum.held_for_confirmation());
}
