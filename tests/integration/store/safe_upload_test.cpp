// What keeps an upload from losing contacts, against a real redis-server: the
// mass-deletion guard, removals that only take the version the line has seen,
// history and point-in-time restore.
#include "core/stamp.hpp"
#include "tests/integration/store/store_fixture.hpp"

#include <chrono>
#include <set>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

struct safe_upload : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line1);
    register_line(a.store, person, line2);
  }

  store::upload_result send(const std::string& line, std::vector<core::book_entry> book,
                            std::uint64_t confirm = 0,
                            store::scope where = store::scope::shared,
                            store::upload_mode mode = store::upload_mode::snapshot) {
    store::upload_request req;
    req.idcode = person;
    req.line = line;
    req.token_hash = proof_of(line);
    req.scope = where;
    req.mode = mode;
    req.cards = std::move(book);
    req.now_ms = core::unix_now_ms();
    req.confirm_removals = confirm;
    auto r = a.store.upload(req);
    EXPECT_TRUE(r) << describe(r.error());
    return r ? *r : store::upload_result{};
  }

  store::upload_result remove(const std::string& line, const std::string& uid) {
    store::upload_request req;
    req.idcode = person;
    req.line = line;
    req.token_hash = proof_of(line);
    req.mode = store::upload_mode::remove;
    req.uids = {uid};
    req.now_ms = core::unix_now_ms();
    auto r = a.store.upload(req);
    EXPECT_TRUE(r) << describe(r.error());
    return r ? *r : store::upload_result{};
  }

  /// Fetches and applies everything pending for `line`.
  void take_pending(const std::string& line) {
    auto f = a.store.fetch_pending(person, line, proof_of(line));
    ASSERT_TRUE(f);
    ASSERT_TRUE(a.store.ack_pending(person, line, proof_of(line), f->cursor,
                                    store::decision::apply));
  }

  std::map<std::string, std::string> live_cards(const std::string& line,
                                                store::scope where) {
    std::map<std::string, std::string> out;
    auto held = a.store.read_cards(person, line, proof_of(line), where);
    EXPECT_TRUE(held);
    for (auto& c : *held)
      out[c.uid] = c.record.card;
    return out;
  }

  /// An instant strictly between what was written before and what comes after.
  static std::uint64_t instant_between() {
    std::this_thread::sleep_for(std::chrono::milliseconds{3});
    auto t = core::unix_now_ms();
    std::this_thread::sleep_for(std::chrono::milliseconds{3});
    return t;
  }

  store::upload_result restore(std::uint64_t at, bool preview,
                               store::scope where = store::scope::shared,
                               const std::string& line = line1) {
    store::restore_request req{person, line,    proof_of(line),     where,
                               at,     preview, core::unix_now_ms()};
    auto r = a.store.restore(req);
    EXPECT_TRUE(r) << describe(r.error());
    return r ? *r : store::upload_result{};
  }

  carrier_store a{"carrier-a"};
};

} // namespace

// -- mass-deletion guard --------------------------------------------------------

TEST_F(safe_upload, a_snapshot_removing_most_of_the_book_is_held_until_confirmed) {
  send(line1, numbered_cards(0, 20));
  auto before = shared_records(a.client, person);
  auto held = send(line1, numbered_cards(0, 5));
  EXPECT_TRUE(held.held_for_confirmation());
  EXPECT_EQ(held.would_remove, 15u);
  EXPECT_EQ(held.book_size, 20u);
  EXPECT_EQ(shared_records(a.client, person), before); // nothing stored
  EXPECT_TRUE(
      send(line1, numbered_cards(0, 5), 14).held_for_confirmation()); // too few confirmed
  auto confirmed = send(line1, numbered_cards(0, 5), 15);
  EXPECT_FALSE(confirmed.held_for_confirmation());
  EXPECT_EQ(confirmed.removed, 15u);
  EXPECT_EQ(live_cards(line1, store::scope::shared).size(), 5u);
}

// A held snapshot stores nothing, the number of its line's origin in the
// account's table of origins included.
TEST_F(safe_upload, a_held_snapshot_claims_no_number_for_its_line) {
  send(line1, numbered_cards(0, 20));
  take_pending(line2);
  const auto table = origins_of(a.client, person);
  EXPECT_EQ(table.count(core::origin_number("carrier-a", line1)), 1u);
  EXPECT_TRUE(send(line2, numbered_cards(0, 5)).held_for_confirmation());
  EXPECT_EQ(origins_of(a.client, person), table);
  EXPECT_EQ(send(line2, numbered_cards(0, 5), 15).removed, 15u);
  EXPECT_EQ(origins_of(a.client, person).count(core::origin_number("carrier-a", line2)),
            1u);
}

TEST_F(safe_upload, removals_within_either_bound_need_no_confirmation) {
  send(line1, numbered_cards(0, 100));
  auto ten = send(line1, numbered_cards(10, 100)); // 10 cards: not more than 10
  EXPECT_FALSE(ten.held_for_confirmation());
  EXPECT_EQ(ten.removed, 10u);
  auto few = send(line1, numbered_cards(30, 100)); // 20 of 90: not more than 30%
  EXPECT_FALSE(few.held_for_confirmation());
  EXPECT_EQ(few.removed, 20u);
}

TEST_F(safe_upload, the_guard_holds_a_private_snapshot_too) {
  send(line1, numbered_cards(0, 20), 0, store::scope::private_backup);
  auto held = send(line1, {}, 0, store::scope::private_backup);
  EXPECT_TRUE(held.held_for_confirmation());
  EXPECT_EQ(held.would_remove, 20u);
  EXPECT_EQ(live_cards(line1, store::scope::private_backup).size(), 20u);
  EXPECT_EQ(send(line1, {}, 20, store::scope::private_backup).removed, 20u);
  EXPECT_TRUE(live_cards(line1, store::scope::private_backup).empty());
}

// -- an edit beats a stale removal ----------------------------------------------

TEST_F(safe_upload,
       a_snapshot_leaving_out_a_card_changed_since_the_line_saw_it_keeps_it) {
  send(line1, {make_card("k1", "v1"), make_card("k2", "x")});
  take_pending(line2);
  send(line1, {make_card("k1", "v2"), make_card("k2", "x")}); // line 1 edits k1
  auto stale = send(line2, {make_card("k2", "x")});           // line 2 still had v1
  EXPECT_EQ(stale.removed, 0u);
  ASSERT_EQ(stale.conflicts.size(), 1u);
  EXPECT_EQ(stale.conflicts[0].uid, "k1");
  EXPECT_EQ(stale.conflicts[0].reason, "changed-since-seen");
  EXPECT_EQ(live_cards(line2, store::scope::shared)["k1"], make_card("k1", "v2").card);
  // The newer version is offered to line 2 again, as a card it does not hold.
  auto offered = a.store.fetch_pending(person, line2, proof_of(line2));
  EXPECT_EQ(kinds(*offered), (std::map<std::string, std::string>{{"k1", "added"}}));
  // Line 1 was told nothing: nothing changed for it.
  EXPECT_TRUE(a.store.fetch_pending(person, line1, proof_of(line1))->changes.empty());
}

TEST_F(safe_upload, a_removal_of_the_version_the_line_saw_takes_effect) {
  send(line1, {make_card("k1", "v1"), make_card("k2", "x")});
  take_pending(line2);
  auto removal = send(line2, {make_card("k2", "x")});
  EXPECT_EQ(removal.removed, 1u);
  EXPECT_TRUE(removal.conflicts.empty());
  EXPECT_EQ(live_cards(line1, store::scope::shared).count("k1"), 0u);
}

TEST_F(safe_upload, deleting_a_card_the_line_never_held_is_a_conflict) {
  send(line1, {make_card("k1", "v1")});
  auto r = remove(line2, "k1");
  EXPECT_EQ(r.removed, 0u);
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].reason, "not-held");
  EXPECT_EQ(live_cards(line1, store::scope::shared).count("k1"), 1u);
  auto edited = send(line1, {make_card("k1", "v2")});
  take_pending(line2);
  EXPECT_EQ(remove(line2, "k1").removed, 1u); // once seen, it can be removed
}

// -- discard means keep mine ------------------------------------------------------

TEST_F(safe_upload, an_upload_reasserts_the_cards_whose_change_the_line_discarded) {
  send(line1, {make_card("k1", "v1"), make_card("k2", "x")});
  take_pending(line2);
  send(line2, {make_card("k2", "x")}); // line 2 removes k1
  auto f = a.store.fetch_pending(person, line1, proof_of(line1));
  EXPECT_EQ(kinds(*f)["k1"], "removed");
  ASSERT_TRUE(a.store.ack_pending(person, line1, proof_of(line1), f->cursor,
                                  store::decision::discard));
  // Line 1 keeps k1 and uploads its book again: k1 comes back everywhere.
  auto again = send(line1, {make_card("k1", "v1"), make_card("k2", "x")});
  EXPECT_EQ(again.added, 1u);
  EXPECT_EQ(live_cards(line1, store::scope::shared).count("k1"), 1u);
  EXPECT_EQ(kinds(*a.store.fetch_pending(person, line2, proof_of(line2)))["k1"], "added");
  // Once re-asserted, the same book again is a no-op.
  EXPECT_EQ(send(line1, {make_card("k1", "v1"), make_card("k2", "x")}).unchanged, 2u);
}

// -- history and restore ------------------------------------------------------------

TEST_F(safe_upload, history_lists_every_change_newest_first_in_pages) {
  send(line1, {make_card("k1", "v1"), make_card("k2", "x")});
  send(line1, {make_card("k1", "v2")}, 0);
  auto page =
      a.store.read_history(person, line1, proof_of(line1), store::scope::shared, "", 3);
  ASSERT_TRUE(page) << describe(page.error());
  ASSERT_EQ(page->changes.size(), 3u);
  EXPECT_FALSE(page->next.empty());
  std::vector<std::string> seen;
  for (const auto& c : page->changes) {
    seen.push_back(c.kind + ":" + c.uid);
    EXPECT_EQ(c.carrier, "carrier-a");
    EXPECT_EQ(c.line, line1);
    EXPECT_GT(c.at_ms, 1'700'000'000'000u);
  }
  // k1's change and k2's removal in one upload; their order within it is the
  // script's. The first upload's additions are one entry, in the book's order.
  std::sort(seen.begin(), seen.begin() + 2);
  EXPECT_EQ(seen, (std::vector<std::string>{"changed:k1", "removed:k2", "added:k1"}));
  auto rest = a.store.read_history(person, line1, proof_of(line1), store::scope::shared,
                                   page->next, 3);
  ASSERT_EQ(rest->changes.size(), 1u);
  EXPECT_EQ(rest->changes[0].kind + ":" + rest->changes[0].uid, "added:k2");
  EXPECT_EQ(rest->changes[0].at_ms, page->changes[2].at_ms);
  EXPECT_TRUE(rest->next.empty());
}

TEST_F(safe_upload, a_bulk_upload_is_one_history_entry_listed_change_by_change) {
  send(line1, numbered_cards(0, 500));
  auto len = a.client.call({"XLEN", "history:{" + person + "}"});
  EXPECT_EQ(len->view().integer(), 1);
  std::set<std::string> listed;
  std::string next;
  int pages = 0;
  do {
    auto page = a.store.read_history(person, line1, proof_of(line1), store::scope::shared,
                                     next, 120);
    ASSERT_TRUE(page) << describe(page.error());
    for (const auto& c : page->changes) {
      EXPECT_EQ(c.kind, "added");
      listed.insert(c.uid);
    }
    next = page->next;
    ++pages;
  } while (!next.empty() && pages < 10);
  EXPECT_EQ(pages, 5);
  EXPECT_EQ(listed.size(), 500u);
}

TEST_F(safe_upload, restore_previews_and_then_brings_the_shared_book_back) {
  send(line1, {make_card("k1", "v1"), make_card("k2", "x"), make_card("k3", "y")});
  auto then = instant_between();
  auto book_then = live_cards(line1, store::scope::shared);
  send(line1, {make_card("k1", "v2"), make_card("k3", "y"), make_card("k4", "new")});
  auto before = shared_records(a.client, person);
  auto preview = restore(then, true);
  EXPECT_EQ(preview.added, 1u);                        // k2 back
  EXPECT_EQ(preview.changed, 1u);                      // k1 to v1
  EXPECT_EQ(preview.removed, 1u);                      // k4 away
  EXPECT_EQ(shared_records(a.client, person), before); // a preview stores nothing
  auto done = restore(then, false);
  EXPECT_EQ(done.added + done.changed + done.removed, 3u);
  EXPECT_EQ(live_cards(line1, store::scope::shared), book_then);
  // Like an upload from line 1: the other line is offered the changes.
  EXPECT_EQ(kinds(*a.store.fetch_pending(person, line2, proof_of(line2))),
            (std::map<std::string, std::string>{
                {"k1", "added"}, {"k2", "added"}, {"k3", "added"}}));
  // Restoring to the same instant again changes nothing.
  auto again = restore(then, false);
  EXPECT_EQ(again.added + again.changed + again.removed, 0u);
}

TEST_F(safe_upload, restore_brings_a_private_backup_back_and_leaves_the_shared_alone) {
  send(line1, {make_card("k1", "v1"), make_card("k2", "x")}, 0,
       store::scope::private_backup);
  auto then = instant_between();
  send(line1, {make_card("k1", "v2")}, 0, store::scope::private_backup);
  EXPECT_EQ(restore(then, true, store::scope::private_backup).changed, 1u);
  restore(then, false, store::scope::private_backup);
  EXPECT_EQ(live_cards(line1, store::scope::private_backup),
            (std::map<std::string, std::string>{{"k1", make_card("k1", "v1").card},
                                                {"k2", make_card("k2", "x").card}}));
  EXPECT_TRUE(shared_records(a.client, person).empty());
  // Another line's private history is its own.
  EXPECT_TRUE(a.store
                  .read_history(person, line2, proof_of(line2),
                                store::scope::private_backup, "", 10)
                  ->changes.empty());
}

// The shared history is trimmed to the policy's age at most once an hour
// (a trim per write cost 3% of an edit's work): an entry past the age stays
// until a write an hour after the last trim drops it.
TEST_F(safe_upload, the_history_is_trimmed_to_its_age_at_most_once_an_hour) {
  store::account_store minute{a.client, "carrier-a", a.keys,
                              store::history_policy{60'000, 100}};
  auto history_length = [&] {
    return a.client.call({"XLEN", "history:{" + person + "}"})->view().integer();
  };
  const auto start = core::unix_now_ms();
  auto edit_at = [&](std::uint64_t now_ms, const std::string& version) {
    store::upload_request req;
    req.idcode = person;
    req.line = line1;
    req.token_hash = proof_of(line1);
    req.mode = store::upload_mode::delta;
    req.cards = {make_card("k1", version)};
    req.now_ms = now_ms;
    ASSERT_TRUE(minute.upload(req));
  };
  // A new account's first trim is due an hour after it was made, not at its
  // first edit: its history holds nothing older.
  auto trims_before = command_calls(a.admin, "xtrim");
  edit_at(start, "v1");
  EXPECT_EQ(command_calls(a.admin, "xtrim"), trims_before);
  auto after_first = history_length();
  ASSERT_GE(after_first, 1);
  // Two minutes on, the first entry is past the policy's minute, but the last
  // trim was within the hour: the entry stays.
  edit_at(start + 120'000, "v2");
  EXPECT_EQ(history_length(), after_first + 1);
  // An hour on, a write trims: every entry (all written just now, by the
  // server's clock) is older than the policy's minute before that hour.
  edit_at(start + 3'700'000, "v3");
  EXPECT_EQ(history_length(), 0);
}

TEST_F(safe_upload, history_is_bounded_and_a_restore_beyond_it_is_refused) {
  store::account_store small{a.client, "carrier-a", a.keys,
                             store::history_policy{3'600'000, 4}};
  auto early = instant_between();
  for (int round = 0; round < 6; ++round) {
    store::upload_request req;
    req.idcode = person;
    req.line = line1;
    req.token_hash = proof_of(line1);
    req.cards = {make_card("k1", "v" + std::to_string(round)), make_card("k2", "x")};
    req.now_ms = core::unix_now_ms();
    ASSERT_TRUE(small.upload(req));
  }
  auto len = a.client.call({"XLEN", "history:{" + person + "}"});
  EXPECT_EQ(len->view().integer(), 4);
  store::restore_request req{person, line1, proof_of(line1),    store::scope::shared,
                             early,  true,  core::unix_now_ms()};
  auto refused = small.restore(req);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), ec::beyond_history);
  req.at_ms = core::unix_now_ms();
  EXPECT_TRUE(small.restore(req)); // the recent past is still within reach
}
