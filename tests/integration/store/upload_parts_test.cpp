// A large upload sent in parts (store/upload_parts.hpp) against a real
// redis-server: the parts store what the one call would have, the guard
// holds the snapshot before any card is stored, and what the line discarded
// is settled as a whole snapshot settles it. Deltas of two cards and
// compares of five here, so that small books take the parts' path (a hash
// of up to 128 fields is scanned in one page, whatever the page's size).
#include "store/upload_parts.hpp"
#include "tests/integration/store/store_fixture.hpp"
#include "tests/support/upload_in_parts.hpp"

#include <map>
#include <set>
#include <tuple>

using namespace simsync;
using namespace simsync::testing;

namespace {

// A line is one account's: the other person's lines are others.
const std::string other_line1 = "+8613700137000";
const std::string other_line2 = "+8613600136000";
constexpr store::part_sizes sizes{2, 5, store::snapshot_compare_above};

struct upload_parts : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line1);
    register_line(a.store, person, line2);
    register_line(a.store, other_person, other_line1);
    register_line(a.store, other_person, other_line2);
  }

  store::upload_request request(const std::string& idcode, const std::string& line,
                                std::vector<core::book_entry> book,
                                std::uint64_t confirm = 0,
                                store::scope where = store::scope::shared) {
    auto req = upload_request_of(idcode, line, std::move(book),
                                 store::upload_mode::snapshot, where);
    req.now_ms = core::unix_now_ms();
    req.confirm_removals = confirm;
    return req;
  }

  /// The upload as one call.
  store::upload_result whole(const std::string& idcode, const std::string& line,
                             std::vector<core::book_entry> book,
                             std::uint64_t confirm = 0) {
    auto r = a.store.upload(request(idcode, line, std::move(book), confirm));
    EXPECT_TRUE(r) << describe(r.error());
    return r ? *r : store::upload_result{};
  }

  /// The upload in parts, as the gateway sends them (upload_in_parts).
  /// `calls` counts them.
  store::upload_result in_parts(const std::string& idcode, const std::string& line,
                                std::vector<core::book_entry> book,
                                std::uint64_t confirm = 0, std::size_t* calls = nullptr,
                                store::scope where = store::scope::shared) {
    auto r = upload_in_parts(
        a.store, request(idcode, line, std::move(book), confirm, where), sizes, calls);
    EXPECT_TRUE(r) << describe(r.error());
    return r ? *r : store::upload_result{};
  }

  void take_pending(const std::string& idcode, const std::string& line) {
    auto f = a.store.fetch_pending(idcode, line, proof_of(line));
    ASSERT_TRUE(f);
    ASSERT_TRUE(a.store.ack_pending(idcode, line, proof_of(line), f->cursor,
                                    store::decision::apply));
  }

  std::map<std::string, std::string>
  live_cards(const std::string& idcode, const std::string& line,
             store::scope where = store::scope::shared) {
    std::map<std::string, std::string> out;
    auto held = a.store.read_cards(idcode, line, proof_of(line), where);
    EXPECT_TRUE(held);
    for (auto& c : *held)
      if (!c.record.deleted)
        out[c.uid] = c.record.card;
    return out;
  }

  std::map<std::string, std::string> pending_kinds(const std::string& idcode,
                                                   const std::string& line) {
    auto f = a.store.fetch_pending(idcode, line, proof_of(line));
    EXPECT_TRUE(f);
    return f ? kinds(*f) : std::map<std::string, std::string>{};
  }

  carrier_store a{"carrier-a"};
};

} // namespace

TEST_F(upload_parts, a_snapshot_in_parts_stores_what_the_one_call_stores) {
  // The same history for both persons: line 1's book, taken by line 2, then
  // line 1 edits u5, which line 2 has not seen.
  for (auto [who, first, second] : {std::tuple{person, line1, line2},
                                    std::tuple{other_person, other_line1, other_line2}}) {
    whole(who, first, numbered_cards(0, 10));
    take_pending(who, second);
    auto edited = numbered_cards(0, 10);
    edited[5] = make_card("u5", "edited by line 1");
    whole(who, first, edited);
  }
  // Line 2's snapshot leaves out u0-u2 (removals) and u5 (a conflict: it
  // changed since line 2 saw it), changes u4 and adds u10, u11.
  auto book = numbered_cards(3, 12);
  book[1] = make_card("u4", "changed by line 2");
  book.erase(book.begin() + 2); // u5
  auto one = whole(person, line2, book);
  std::size_t calls = 0;
  auto parts = in_parts(other_person, other_line2, book, 0, &calls);

  EXPECT_EQ(calls, 2u + 1u + 1u + 2u)
      << "two compares; a scan and a prune (u0-u2 and u5 are left out); then of 8 "
         "cards in parts of 2 those line 2 does not hold as they are: u4 (without u3), "
         "u10 and u11";
  EXPECT_EQ(parts.added, one.added);
  EXPECT_EQ(parts.changed, one.changed);
  EXPECT_EQ(parts.removed, one.removed);
  EXPECT_EQ(parts.unchanged, one.unchanged);
  EXPECT_EQ(one.added, 2u);
  EXPECT_EQ(one.changed, 1u);
  EXPECT_EQ(one.removed, 3u);
  ASSERT_EQ(parts.conflicts.size(), 1u);
  EXPECT_EQ(parts.conflicts[0].uid, "u5");
  EXPECT_EQ(parts.conflicts[0].reason, one.conflicts.at(0).reason);
  EXPECT_EQ(live_cards(other_person, other_line1), live_cards(person, line1));
  EXPECT_EQ(pending_kinds(other_person, other_line1), pending_kinds(person, line1));
  EXPECT_EQ(pending_kinds(other_person, other_line2), pending_kinds(person, line2));
  EXPECT_EQ(pending_kinds(other_person, other_line2),
            (std::map<std::string, std::string>{{"u5", "added"}}));
  auto version = a.admin.call({"HGET", store::keys::account(other_person), "version"});
  ASSERT_TRUE(version);
  EXPECT_EQ(std::to_string(parts.version), version->view().str()) << "the last part's";
}

TEST_F(upload_parts, the_guard_holds_a_snapshot_in_parts_before_any_card_is_stored) {
  whole(person, line1, numbered_cards(0, 20));
  auto before = shared_records(a.client, person);
  std::size_t calls = 0;
  auto held = in_parts(person, line1, numbered_cards(100, 110), 0, &calls);
  EXPECT_TRUE(held.held_for_confirmation());
  EXPECT_EQ(held.would_remove, 20u);
  EXPECT_EQ(held.book_size, 20u);
  EXPECT_EQ(calls, 2u + 1u + 1u) << "two compares, a scan, then the prune holds it";
  EXPECT_EQ(shared_records(a.client, person), before) << "nothing stored";

  auto confirmed = in_parts(person, line1, numbered_cards(100, 110), 20);
  EXPECT_FALSE(confirmed.held_for_confirmation());
  EXPECT_EQ(confirmed.removed, 20u);
  EXPECT_EQ(confirmed.added, 10u);
  EXPECT_EQ(live_cards(person, line1).size(), 10u);
}

TEST_F(upload_parts, a_snapshot_in_parts_settles_what_the_line_discarded) {
  whole(person, line1,
        {make_card("k1", "v1"), make_card("k2", "x"), make_card("k3", "y")});
  take_pending(person, line2);
  whole(person, line2, {make_card("k2", "x")}); // line 2 removes k1 and k3
  auto f = a.store.fetch_pending(person, line1, proof_of(line1));
  ASSERT_TRUE(f);
  ASSERT_TRUE(a.store.ack_pending(person, line1, proof_of(line1), f->cursor,
                                  store::decision::discard));
  auto reassert = store::keys::reassert(person, line1);
  ASSERT_EQ(a.admin.call({"SCARD", reassert})->view().integer(), 2);

  // Line 1 keeps k1 (in its snapshot, in a part of its own) and has dropped
  // k3 since (left out): k1 comes back, and nothing is left to re-assert.
  auto again = in_parts(
      person, line1, {make_card("k1", "v1"), make_card("k2", "x"), make_card("k4", "z")});
  EXPECT_EQ(again.added, 2u); // k1 again, and k4
  EXPECT_EQ(live_cards(person, line1).count("k1"), 1u);
  EXPECT_EQ(live_cards(person, line1).count("k3"), 0u);
  EXPECT_EQ(pending_kinds(person, line2)["k1"], "added");
  EXPECT_EQ(a.admin.call({"EXISTS", reassert})->view().integer(), 0);
  std::size_t calls = 0;
  EXPECT_EQ(in_parts(person, line1,
                     {make_card("k1", "v1"), make_card("k2", "x"), make_card("k4", "z")},
                     0, &calls)
                .unchanged,
            3u);
  EXPECT_EQ(calls, 1u) << "nothing left out or to re-assert: the compare alone";
}

TEST_F(upload_parts, a_resync_sends_only_the_cards_the_line_does_not_hold_as_they_are) {
  std::size_t calls = 0;
  EXPECT_EQ(in_parts(person, line1, numbered_cards(0, 10), 0, &calls).added, 10u);
  EXPECT_EQ(calls, 1u + 5u) << "a new line holds nothing: a compare (not a second, and "
                               "no prune), then every part";
  take_pending(person, line2);
  auto before = shared_records(a.client, person);

  calls = 0;
  auto same = in_parts(person, line1, numbered_cards(0, 10), 0, &calls);
  EXPECT_EQ(calls, 2u) << "an unchanged book: the compares alone";
  EXPECT_EQ(same.unchanged, 10u);
  EXPECT_EQ(same.added + same.changed + same.removed, 0u);
  EXPECT_EQ(shared_records(a.client, person), before);

  // u3 and u7 changed, u9 left out, u10 new: u3 and u7 in one part (the
  // part of u2, u3 and that of u6, u7 hold one card each), u10 in another.
  auto book = numbered_cards(0, 9);
  book[3] = make_card("u3", "changed");
  book[7] = make_card("u7", "changed");
  book.push_back(make_card("u10", "new"));
  calls = 0;
  auto edited = in_parts(person, line1, book, 0, &calls);
  EXPECT_EQ(calls, 2u + 1u + 1u + 3u) << "two compares, a scan and a prune (u9 is left "
                                         "out), then the parts of u3, u7 and u10";
  EXPECT_EQ(edited.changed, 2u);
  EXPECT_EQ(edited.added, 1u);
  EXPECT_EQ(edited.removed, 1u);
  EXPECT_EQ(edited.unchanged, 7u);
  auto held = live_cards(person, line1);
  EXPECT_EQ(held.size(), 10u);
  EXPECT_NE(held["u3"].find("changed"), std::string::npos);
  EXPECT_NE(held["u10"].find("new"), std::string::npos);
  EXPECT_EQ(held.count("u9"), 0u);
  EXPECT_EQ(
      pending_kinds(person, line2),
      (std::map<std::string, std::string>{
          {"u3", "changed"}, {"u7", "changed"}, {"u9", "removed"}, {"u10", "added"}}));
}

TEST_F(upload_parts, a_resync_sends_again_a_card_the_line_discarded_a_removal_of) {
  in_parts(person, line1,
           {make_card("k1", "a"), make_card("k2", "b"), make_card("k3", "c")});
  take_pending(person, line2);
  in_parts(person, line2, {make_card("k2", "b"), make_card("k3", "c")}); // removes k1
  auto f = a.store.fetch_pending(person, line1, proof_of(line1));
  ASSERT_TRUE(f);
  ASSERT_TRUE(a.store.ack_pending(person, line1, proof_of(line1), f->cursor,
                                  store::decision::discard));
  ASSERT_EQ(live_cards(person, line1).count("k1"), 0u);

  // Line 1's base holds all three as it re-syncs them, but it kept k1
  // against line 2's removal: k1 is sent, and comes back.
  std::size_t calls = 0;
  auto again = in_parts(
      person, line1, {make_card("k1", "a"), make_card("k2", "b"), make_card("k3", "c")},
      0, &calls);
  EXPECT_EQ(calls, 2u) << "a compare, then the part of k1, which settles its discarded "
                          "removal: no prune";
  EXPECT_EQ(
      a.admin.call({"EXISTS", store::keys::reassert(person, line1)})->view().integer(),
      0);
  EXPECT_EQ(again.added, 1u);
  EXPECT_EQ(again.unchanged, 2u);
  EXPECT_EQ(live_cards(person, line1).count("k1"), 1u);
  EXPECT_EQ(pending_kinds(person, line2)["k1"], "added");
}

TEST_F(upload_parts, a_resync_leaves_another_lines_change_the_line_has_not_taken) {
  in_parts(person, line1, numbered_cards(0, 6));
  take_pending(person, line2);
  auto edit = request(person, line2, {make_card("u2", "line 2's")});
  edit.mode = store::upload_mode::delta;
  ASSERT_TRUE(a.store.upload(edit));

  // Line 1 re-syncs its book as it holds it, u2 as it was before line 2's
  // edit, which it has not taken: that is no change of line 1's.
  std::size_t calls = 0;
  auto same = in_parts(person, line1, numbered_cards(0, 6), 0, &calls);
  EXPECT_EQ(calls, 2u) << "the compares alone";
  EXPECT_EQ(same.unchanged, 6u);
  EXPECT_NE(live_cards(person, line2)["u2"].find("line 2's"), std::string::npos);
  EXPECT_EQ(pending_kinds(person, line1),
            (std::map<std::string, std::string>{{"u2", "changed"}}));
}

TEST_F(upload_parts, a_delta_in_parts_is_deltas_and_removes_nothing) {
  whole(person, line1, numbered_cards(0, 3));
  std::size_t calls = 0;
  auto req = request(person, line1, numbered_cards(3, 8));
  req.mode = store::upload_mode::delta;
  store::upload_plan plan(req, sizes);
  while (auto part = plan.next(1)) {
    ++calls;
    EXPECT_EQ(part->mode, store::upload_mode::delta);
    auto r = a.store.upload(*part);
    ASSERT_TRUE(r) << describe(r.error());
    plan.answered(*r);
  }
  EXPECT_EQ(calls, 3u);
  EXPECT_EQ(plan.sum().added, 5u);
  EXPECT_EQ(plan.sum().removed, 0u);
  EXPECT_EQ(live_cards(person, line1).size(), 8u);
}

TEST_F(upload_parts,
       a_private_snapshot_in_parts_removes_what_it_leaves_out_past_the_guard) {
  const auto backup = store::scope::private_backup;
  auto first = in_parts(person, line1, numbered_cards(0, 20), 0, nullptr, backup);
  EXPECT_EQ(first.added, 20u);
  auto held = in_parts(person, line1, numbered_cards(15, 25), 0, nullptr, backup);
  EXPECT_TRUE(held.held_for_confirmation());
  EXPECT_EQ(held.would_remove, 15u);
  EXPECT_EQ(live_cards(person, line1, backup).size(), 20u) << "nothing stored";
  auto confirmed = in_parts(person, line1, numbered_cards(15, 25), 15, nullptr, backup);
  EXPECT_EQ(confirmed.removed, 15u);
  EXPECT_EQ(confirmed.added, 5u);
  EXPECT_EQ(confirmed.unchanged, 5u);
  EXPECT_EQ(live_cards(person, line1, backup).size(), 10u);
  EXPECT_TRUE(live_cards(person, line1).empty()) << "the shared book is untouched";

  std::size_t calls = 0;
  auto book = numbered_cards(15, 25);
  book[2] = make_card("u17", "changed");
  auto again = in_parts(person, line1, book, 0, &calls, backup);
  EXPECT_EQ(calls, 2u + 1u) << "two compares, then the part of u17";
  EXPECT_EQ(again.changed, 1u);
  EXPECT_EQ(again.unchanged, 9u);
  EXPECT_NE(live_cards(person, line1, backup)["u17"].find("changed"), std::string::npos);
}

TEST_F(upload_parts, a_compare_scan_or_prune_with_another_lines_proof_is_refused) {
  whole(person, line1, numbered_cards(0, 5));
  take_pending(person, line2);
  for (auto mode :
       {store::upload_mode::compare, store::upload_mode::scan, store::upload_mode::prune})
    for (std::string proof :
         {proof_of(line1), std::string("x"), std::string(store::operator_proof)}) {
      auto part = request(person, line2, {});
      part.mode = mode;
      part.cards = {make_card("u0", "a")};
      part.uids = {"u0"};
      part.scan_cursor = "0";
      part.scan_count = 10;
      part.token_hash = proof;
      auto r = a.store.upload(part);
      ASSERT_FALSE(r) << "proof '" << proof << "'";
      EXPECT_EQ(r.error(), ec::bad_token);
    }
  EXPECT_EQ(live_cards(person, line1).size(), 5u) << "nothing removed";
}

TEST_F(upload_parts, a_compare_answers_what_the_line_holds_and_stores_nothing) {
  whole(person, line1, numbered_cards(0, 4));
  auto before = a.admin.call({"HGET", store::keys::account(person), "version"});
  ASSERT_TRUE(before);
  auto compare = request(person, line1, {});
  compare.mode = store::upload_mode::compare;
  auto u1 = numbered_cards(1, 2)[0];
  compare.cards = {make_card("u9", "not held"), make_card("u2", "changed"), u1};
  auto records = shared_records(a.client, person);
  auto r = a.store.upload(compare);
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->cards_to_send, "110") << "u1 alone is held as it is";
  EXPECT_EQ(r->unchanged, 1u);
  EXPECT_EQ(r->added + r->changed + r->removed, 0u);
  EXPECT_EQ(r->base_holds, 2u) << "u2 and u1";
  EXPECT_EQ(r->base_size, 4u);
  EXPECT_TRUE(r->discarded.empty());
  EXPECT_EQ(std::to_string(r->version), before->view().str());
  EXPECT_EQ(shared_records(a.client, person), records);
  EXPECT_EQ(a.admin.call({"HGET", store::keys::account(person), "version"})->view().str(),
            before->view().str());
}

TEST_F(upload_parts, a_scan_answers_the_uids_the_line_holds_a_page_at_a_time) {
  whole(person, line1, numbered_cards(0, 300)); // more than one page's hash
  auto records = shared_records(a.client, person);
  auto version = a.admin.call({"HGET", store::keys::account(person), "version"});
  ASSERT_TRUE(version);
  std::set<std::string> seen;
  std::size_t pages = 0;
  std::string cursor = "0";
  do {
    auto scan = request(person, line1, {});
    scan.mode = store::upload_mode::scan;
    scan.scan_cursor = cursor;
    scan.scan_count = 50;
    auto r = a.store.upload(scan);
    ASSERT_TRUE(r) << describe(r.error());
    ++pages;
    EXPECT_LT(r->base_uids.size(), 150u) << "about a page";
    EXPECT_EQ(std::to_string(r->version), version->view().str());
    seen.insert(r->base_uids.begin(), r->base_uids.end());
    cursor = r->scan_cursor;
  } while (cursor != "0" && pages < 100);
  EXPECT_GT(pages, 2u);
  EXPECT_EQ(seen.size(), 300u) << "every uid the line holds";
  EXPECT_EQ(seen.count("u299"), 1u);
  EXPECT_TRUE(seen.count("u300") == 0);
  EXPECT_EQ(shared_records(a.client, person), records) << "it stores nothing";
  EXPECT_EQ(a.admin.call({"HGET", store::keys::account(person), "version"})->view().str(),
            version->view().str());

  // Line 2 holds nothing: one empty page.
  auto scan = request(person, line2, {});
  scan.mode = store::upload_mode::scan;
  scan.scan_cursor = "0";
  scan.scan_count = 50;
  auto none = a.store.upload(scan);
  ASSERT_TRUE(none) << describe(none.error());
  EXPECT_TRUE(none->base_uids.empty());
  EXPECT_EQ(none->scan_cursor, "0");
}

TEST_F(upload_parts, a_resync_leaving_cards_out_of_a_large_base_scans_it_in_pages) {
  for (const auto& who : {person, other_person})
    whole(who, who == person ? line1 : other_line1, numbered_cards(0, 300));
  // The same book less u17, u150 and u299, as one call and in parts with
  // scans of 40 uids.
  auto book = numbered_cards(0, 300);
  book.erase(book.begin() + 299);
  book.erase(book.begin() + 150);
  book.erase(book.begin() + 17);
  auto one = whole(person, line1, book);
  std::map<store::upload_mode, std::size_t> calls;
  store::upload_plan plan(request(other_person, other_line1, book), {100, 100, 100, 40});
  while (auto part = plan.next(1)) {
    ++calls[part->mode];
    if (part->mode == store::upload_mode::prune) {
      EXPECT_EQ(part->uids, (std::vector<std::string>{"u150", "u17", "u299"}))
          << "it names only what the snapshot leaves out";
    }
    auto r = a.store.upload(*part);
    ASSERT_TRUE(r) << describe(r.error());
    plan.answered(*r);
  }
  EXPECT_EQ(calls[store::upload_mode::compare], 3u);
  EXPECT_GT(calls[store::upload_mode::scan], 2u) << "a page at a time";
  EXPECT_EQ(calls[store::upload_mode::prune], 1u);
  EXPECT_EQ(calls[store::upload_mode::delta], 0u) << "every card it sends is held";
  EXPECT_EQ(plan.sum().removed, 3u);
  EXPECT_EQ(plan.sum().removed, one.removed);
  EXPECT_EQ(plan.sum().unchanged, one.unchanged);
  EXPECT_EQ(live_cards(other_person, other_line1).size(), 297u);
  EXPECT_EQ(live_cards(other_person, other_line1).count("u150"), 0u);
  EXPECT_EQ(pending_kinds(other_person, other_line2), pending_kinds(person, line2));
}

TEST_F(upload_parts,
       a_resync_settles_a_discarded_card_it_leaves_out_without_removing_it) {
  in_parts(person, line1, numbered_cards(0, 4));
  take_pending(person, line2);
  auto addition = request(person, line2, {make_card("k5", "line 2's")});
  addition.mode = store::upload_mode::delta;
  ASSERT_TRUE(a.store.upload(addition));
  auto f = a.store.fetch_pending(person, line1, proof_of(line1));
  ASSERT_TRUE(f);
  ASSERT_TRUE(a.store.ack_pending(person, line1, proof_of(line1), f->cursor,
                                  store::decision::discard));
  auto reassert = store::keys::reassert(person, line1);
  ASSERT_EQ(a.admin.call({"SISMEMBER", reassert, "k5"})->view().integer(), 1);

  // Line 1 never took k5 and leaves it out: a prune names it, which settles
  // it and removes nothing (line 1 never held it).
  std::size_t calls = 0;
  auto again = in_parts(person, line1, numbered_cards(0, 4), 0, &calls);
  EXPECT_EQ(calls, 2u) << "the compare, then the prune of k5";
  EXPECT_EQ(again.removed, 0u);
  EXPECT_TRUE(again.conflicts.empty()) << "k5 is no removal of line 1's to refuse";
  EXPECT_EQ(again.unchanged, 4u);
  EXPECT_EQ(a.admin.call({"EXISTS", reassert})->view().integer(), 0);
  EXPECT_EQ(live_cards(person, line2).count("k5"), 1u);
  calls = 0;
  in_parts(person, line1, numbered_cards(0, 4), 0, &calls);
  EXPECT_EQ(calls, 1u) << "nothing left to settle: the compare alone";
}
