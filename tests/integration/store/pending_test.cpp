// F5 update request and F6 fetch / ack against a real redis-server.
#include "store/history_fields.hpp"
#include "store/keys.hpp"
#include "tests/integration/store/store_fixture.hpp"

#include <set>

using namespace simsync;
using namespace simsync::testing;

namespace {

struct mailbox : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line1);
    register_line(a.store, person, line2);
    upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  }
  store::pending_fetch fetch(const std::string& line) {
    auto f = a.store.fetch_pending(person, line, proof_of(line));
    EXPECT_TRUE(f) << describe(f.error());
    return f ? *f : store::pending_fetch{};
  }
  carrier_store a{"carrier-a"};
};

} // namespace

TEST_F(mailbox, fetch_returns_the_cards_and_counts) {
  auto f = fetch(line2);
  EXPECT_FALSE(f.cursor.empty());
  EXPECT_EQ(f.counts.added, 2u);
  ASSERT_EQ(f.changes.size(), 2u);
  for (const auto& c : f.changes)
    EXPECT_EQ(c.record.card, make_card(c.uid, c.uid == "u1" ? "Li" : "Wang").card);
}

TEST_F(mailbox, the_mailbox_is_read_from_the_history_and_holds_nothing_per_card) {
  // The shared store holds every pending card already, and the account's
  // history names each change: an entry per card per line here would add
  // to the account's memory for each line.
  EXPECT_TRUE(pending_entries(a.client, person, line2).empty());
  auto f = fetch(line2);
  ASSERT_EQ(f.changes.size(), 2u);
  for (const auto& c : f.changes)
    EXPECT_EQ(c.record.card, make_card(c.uid, c.uid == "u1" ? "Li" : "Wang").card);
}

TEST_F(mailbox, an_entry_in_the_old_format_is_fetched_and_acked) {
  // A mailbox written before entries became references holds "seq:record".
  auto shared = shared_records(a.client, person);
  auto key = "pending:{" + person + "}:" + line2;
  auto u1 = "90:" + shared["u1"];
  auto u2 = "91:" + shared["u2"];
  ASSERT_TRUE(a.client.call({"HSET", key, "u1", u1, "u2", u2}));
  auto f = fetch(line2);
  EXPECT_EQ(kinds(f),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
  for (const auto& c : f.changes)
    EXPECT_EQ(c.record.card, make_card(c.uid, c.uid == "u1" ? "Li" : "Wang").card);
  // A newer u2 arrives between fetch and ack: it replaces the old-format
  // entry and stays pending; the fetched u1 leaves.
  upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang Wu")});
  auto n = a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 2u);
  // The newer u2 is pending through the history, not as an entry.
  EXPECT_TRUE(pending_entries(a.client, person, line2).empty());
  auto next = fetch(line2);
  EXPECT_EQ(kinds(next), (std::map<std::string, std::string>{{"u2", "changed"}}));
  ASSERT_EQ(next.changes.size(), 1u);
  EXPECT_EQ(next.changes[0].record.card, make_card("u2", "Wang Wu").card);
}

TEST_F(mailbox, a_line_of_an_older_release_reads_the_history_from_the_upgrade_on) {
  // As an older release left it: line2's pending entries written out (u1
  // taken already), no mark, and no mailbox_from on the account.
  ASSERT_TRUE(a.client.call({"HDEL", store::keys::line(person, line2), "mark"}));
  ASSERT_TRUE(a.client.call({"HDEL", store::keys::account(person), "mailbox_from"}));
  ASSERT_TRUE(a.client.call({"HSET", store::keys::pending(person, line2), "u2", "v1"}));
  // Before this release writes to the account: the written entries alone.
  EXPECT_EQ(kinds(fetch(line2)), (std::map<std::string, std::string>{{"u2", "added"}}));
  // Its first write records where the history starts to count; the change
  // it makes is pending, and what the history held before is not again.
  upload(a.store, person, line1, {make_card("u3", "Zhao")}, store::upload_mode::delta);
  EXPECT_EQ(kinds(fetch(line2)),
            (std::map<std::string, std::string>{{"u2", "added"}, {"u3", "added"}}));
}

TEST_F(mailbox, an_entry_numbered_before_the_upgrade_is_never_taken_for_a_new_offer) {
  // Mailboxes were numbered by a counter per line, which could run ahead of
  // the account's version: an entry of then may hold the very number the
  // next offer takes. Fetched, then offered a newer version under that
  // number, the ack must still leave the newer one.
  auto version = a.client.call({"HGET", store::keys::account(person), "version"});
  auto next_number = std::to_string(std::stoull(std::string(version->view().str())) + 1);
  auto key = store::keys::pending(person, line2);
  ASSERT_TRUE(a.client.call({"HSET", key, "u2", next_number}));
  auto f = fetch(line2);
  ASSERT_EQ(f.changes.size(), 2u);
  upload(a.store, person, line1, {make_card("u2", "Wang Wu")}, store::upload_mode::delta);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  auto next = fetch(line2);
  EXPECT_EQ(kinds(next), (std::map<std::string, std::string>{{"u2", "changed"}}));
}

TEST_F(mailbox, an_entry_whose_card_is_not_in_the_shared_store_is_dropped) {
  ASSERT_TRUE(a.client.call({"HSET", "pending:{" + person + "}:" + line2, "ghost", "7"}));
  EXPECT_EQ(a.store.request_update(person, line2, proof_of(line2))->added, 2u);
  EXPECT_EQ(kinds(fetch(line2)),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
  EXPECT_EQ(pending_entries(a.client, person, line2).count("ghost"), 0u);
}

/// The history's last entry id: where a mailbox read from it reaches.
std::string history_last_id(store::redis_client& r) {
  auto last = r.call({"XREVRANGE", store::keys::history(person), "+", "-", "COUNT", "1"});
  return std::string(last->view()[0][0].str());
}

std::set<std::string> field_names(const std::map<std::string, std::string>& hash) {
  std::set<std::string> names;
  for (const auto& [name, value] : hash)
    names.insert(name);
  return names;
}

TEST_F(mailbox, a_long_wait_is_folded_into_offers_once_read_and_nothing_is_lost) {
  // line1 edits u1 120 times, which line2 never takes: its mailbox is read
  // from more than a hundred history entries.
  for (int i = 0; i < 120; ++i)
    upload(a.store, person, line1, {make_card("u1", "Li " + std::to_string(i))},
           store::upload_mode::delta);
  auto asked = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->added, 2u);
  // What that read found is offered explicitly now, and the line's mark is
  // past it: the next read starts there, not at the line's first change.
  EXPECT_EQ(field_names(pending_entries(a.client, person, line2)),
            (std::set<std::string>{"u1", "u2"}));
  EXPECT_EQ(hash_fields(a.client, store::keys::line(person, line2))["mark"],
            history_last_id(a.client));
  EXPECT_EQ(a.store.request_update(person, line2, proof_of(line2))->added, 2u);
  // Later changes still come, and the fetch has every change in its newest version.
  upload(a.store, person, line1, {make_card("u3", "Zhao")}, store::upload_mode::delta);
  EXPECT_EQ(a.store.request_update(person, line2, proof_of(line2))->added, 3u)
      << "the offers the fold made count with the addition after them";
  auto f = fetch(line2);
  EXPECT_EQ(kinds(f), (std::map<std::string, std::string>{
                          {"u1", "added"}, {"u2", "added"}, {"u3", "added"}}));
  for (const auto& c : f.changes) {
    if (c.uid == "u1") {
      EXPECT_EQ(c.record.card, make_card("u1", "Li 119").card);
    }
  }
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  EXPECT_TRUE(fetch(line2).changes.empty());
  EXPECT_TRUE(pending_entries(a.client, person, line2).empty());
}

TEST_F(mailbox, a_fold_beside_an_open_fetch_leaves_its_later_changes_pending) {
  auto edit_u1 = [&](int from, int to) {
    for (int i = from; i < to; ++i)
      upload(a.store, person, line1, {make_card("u1", "Li " + std::to_string(i))},
             store::upload_mode::delta);
  };
  // The fetch's snapshot folds a long wait: it delivers u1 as an explicit
  // offer, which its ack removes by number.
  edit_u1(0, 120);
  auto f = fetch(line2);
  ASSERT_EQ(f.changes.size(), 2u);
  // Before the ack: 120 more edits of u1, folded by an update request. u1's
  // explicit offer is kept as it was, so the ack removes it; the edits after
  // the snapshot must still be pending (the ack moves the mark back to its
  // snapshot's).
  edit_u1(120, 240);
  ASSERT_TRUE(a.store.request_update(person, line2, proof_of(line2)));
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  auto next = fetch(line2);
  EXPECT_EQ(kinds(next), (std::map<std::string, std::string>{{"u1", "changed"}}));
  ASSERT_EQ(next.changes.size(), 1u);
  EXPECT_EQ(next.changes[0].record.card, make_card("u1", "Li 239").card);
}

TEST_F(mailbox, a_history_trimmed_past_the_mark_offers_the_book_the_line_does_not_hold) {
  auto f = fetch(line2);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  // line2 holds u1 and u2. A history of four entries at most then drops
  // what came after its mark: six edits of u3.
  store::account_store small{a.client, "carrier-a", a.keys,
                             store::history_policy{3'600'000, 4}};
  for (int i = 0; i < 6; ++i)
    upload(small, person, line1, {make_card("u3", "Zhao " + std::to_string(i))},
           store::upload_mode::delta);
  auto asked = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->added, 1u);
  EXPECT_EQ(asked->changed, 0u);
  // The whole book was read once: what the line lacks is offered
  // explicitly, and the next reads start after the history's end.
  EXPECT_EQ(field_names(pending_entries(a.client, person, line2)),
            (std::set<std::string>{"u3"}));
  auto next = fetch(line2);
  EXPECT_EQ(kinds(next), (std::map<std::string, std::string>{{"u3", "added"}}));
  ASSERT_EQ(next.changes.size(), 1u);
  EXPECT_EQ(next.changes[0].record.card, make_card("u3", "Zhao 5").card);
}

TEST_F(mailbox, an_update_request_answers_its_counts_again_until_the_mailbox_changes) {
  auto counts = [&] {
    auto c = a.store.request_update(person, line2, proof_of(line2));
    EXPECT_TRUE(c) << describe(c.error());
    return c ? std::vector<std::size_t>{c->added, c->changed, c->removed}
             : std::vector<std::size_t>{};
  };
  // Counts kept with the tag they hold for are answered as kept: made up
  // here, so that an answer counted anew shows.
  auto keep_made_up_counts = [&] {
    ASSERT_TRUE(
        a.client.call({"HSET", store::keys::line(person, line2), "counted", "9.9.9"}));
  };
  using counted = std::vector<std::size_t>;
  EXPECT_EQ(counts(), (counted{2, 0, 0}));
  keep_made_up_counts();
  EXPECT_EQ(counts(), (counted{9, 9, 9}));
  // Each change to the mailbox counts it anew: a change from another line,
  upload(a.store, person, line1, {make_card("u3", "Zhao")}, store::upload_mode::delta);
  EXPECT_EQ(counts(), (counted{3, 0, 0}));
  // a fetch,
  keep_made_up_counts();
  auto f = fetch(line2);
  EXPECT_EQ(counts(), (counted{3, 0, 0}));
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  EXPECT_EQ(counts(), (counted{0, 0, 0}));
  // a fetch and its ack, which leaves no fetch open, as before the fetch,
  upload(a.store, person, line1, {make_card("u4", "Sun")}, store::upload_mode::delta);
  EXPECT_EQ(counts(), (counted{1, 0, 0}));
  keep_made_up_counts();
  auto f2 = fetch(line2);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f2.cursor,
                                  store::decision::apply));
  EXPECT_EQ(counts(), (counted{0, 0, 0}));
  // and an upload of the line itself that takes a pending card as it is.
  upload(a.store, person, line1, {make_card("u5", "Zhou")}, store::upload_mode::delta);
  EXPECT_EQ(counts(), (counted{1, 0, 0}));
  keep_made_up_counts();
  upload(a.store, person, line2, {make_card("u5", "Zhou")}, store::upload_mode::delta);
  EXPECT_EQ(counts(), (counted{0, 0, 0}));
}

TEST_F(mailbox, apply_moves_the_base_and_empties_the_mailbox) {
  auto f = fetch(line2);
  auto n = a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 2u);
  EXPECT_TRUE(fetch(line2).changes.empty());
  // line2 now holds u1, u2: its snapshot of them is no change.
  auto r =
      upload(a.store, person, line2, {make_card("u1", "Li"), make_card("u2", "Wang")});
  EXPECT_EQ(r.unchanged, 2u);
  EXPECT_EQ(r.added + r.changed, 0u);
}

TEST_F(mailbox, discard_empties_the_mailbox_and_leaves_the_base) {
  auto f = fetch(line2);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::discard));
  EXPECT_TRUE(fetch(line2).changes.empty());
  auto counts = a.store.request_update(person, line2, proof_of(line2));
  EXPECT_EQ(counts->added, 0u);
  // A later edit of a discarded card shows up as added: the line never took it.
  upload(a.store, person, line1, {make_card("u1", "Li Lei"), make_card("u2", "Wang")});
  EXPECT_EQ(kinds(fetch(line2)), (std::map<std::string, std::string>{{"u1", "added"}}));
}

TEST_F(mailbox, changes_after_the_fetch_stay_pending) {
  auto f = fetch(line2);
  // Arrives between fetch and ack: a new version of u1 and a new card u3.
  upload(a.store, person, line1,
         {make_card("u1", "Li Lei"), make_card("u2", "Wang"), make_card("u3", "Zhao")});
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  auto next = fetch(line2);
  // u1 was applied in its fetched version, so the newer one is a change.
  EXPECT_EQ(kinds(next),
            (std::map<std::string, std::string>{{"u1", "changed"}, {"u3", "added"}}));
}

TEST_F(mailbox, a_conflict_offered_again_then_changed_after_the_fetch_stays_pending) {
  // line2 changes u1 after line1 saw it; line1 then removes u1: only the
  // version it saw could go, so the upload changes nothing and offers line1
  // the current u1 again, numbered like any offer.
  upload(a.store, person, line2, {make_card("u1", "Li Lei")}, store::upload_mode::delta);
  store::upload_request removal;
  removal.idcode = person;
  removal.line = line1;
  removal.token_hash = proof_of(line1);
  removal.mode = store::upload_mode::remove;
  removal.uids = {"u1"};
  removal.now_ms = 1'700'000'000'000;
  auto conflict = a.store.upload(removal);
  ASSERT_TRUE(conflict) << describe(conflict.error());
  ASSERT_EQ(conflict->conflicts.size(), 1u);
  auto f = fetch(line1); // (the removal took u1 out of line1's base)
  ASSERT_EQ(kinds(f), (std::map<std::string, std::string>{{"u1", "added"}}));
  // A newer u1 arrives between the fetch and its ack: it must not take the
  // number of the offer fetched, or the ack would take it too.
  upload(a.store, person, line2, {make_card("u1", "Li Lei Jr")},
         store::upload_mode::delta);
  ASSERT_TRUE(a.store.ack_pending(person, line1, proof_of(line1), f.cursor,
                                  store::decision::apply));
  auto next = fetch(line1);
  ASSERT_EQ(kinds(next), (std::map<std::string, std::string>{{"u1", "changed"}}));
  EXPECT_NE(next.changes[0].record.card.find("Li Lei Jr"), std::string::npos);
}

TEST_F(mailbox, an_old_cursor_is_refused_and_changes_nothing) {
  auto first = fetch(line2);
  auto second = fetch(line2);
  auto r = a.store.ack_pending(person, line2, proof_of(line2), first.cursor,
                               store::decision::apply);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::stale_cursor);
  EXPECT_EQ(fetch(line2).changes.size(), 2u);
  auto bogus = a.store.ack_pending(person, line2, proof_of(line2), "not-a-cursor",
                                   store::decision::discard);
  ASSERT_FALSE(bogus);
  EXPECT_EQ(bogus.error(), ec::stale_cursor);
}

TEST_F(mailbox, an_ack_is_used_once) {
  auto f = fetch(line2);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  auto again = a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                   store::decision::apply);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), ec::stale_cursor);
}

TEST_F(mailbox, the_newest_version_replaces_an_older_pending_one) {
  upload(a.store, person, line1, {make_card("u1", "Li Lei"), make_card("u2", "Wang")});
  auto f = fetch(line2);
  ASSERT_EQ(f.changes.size(), 2u);
  for (const auto& c : f.changes) {
    if (c.uid == "u1") {
      EXPECT_EQ(c.record.card, make_card("u1", "Li Lei").card);
    }
  }
}

TEST_F(mailbox, a_card_added_then_removed_before_the_fetch_is_not_shown) {
  upload(a.store, person, line1, {make_card("u1", "Li")});
  EXPECT_EQ(kinds(fetch(line2)), (std::map<std::string, std::string>{{"u1", "added"}}));
}

TEST_F(mailbox, counts_follow_every_change_the_history_names_after_an_addition) {
  // After the additions of u1 and u2: u1 edited, u2 removed, u3 added, then
  // u3 removed; line2 holds none of them.
  upload(a.store, person, line1, {make_card("u1", "Li Si"), make_card("u3", "Zhao")});
  upload(a.store, person, line1, {make_card("u1", "Li Si")});
  auto counted = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(counted) << describe(counted.error());
  EXPECT_EQ(counted->added, 1u) << "u1 only: u2 and u3 are gone";
  EXPECT_EQ(counted->changed, 0u);
  EXPECT_EQ(counted->removed, 0u);
  auto f = fetch(line2);
  EXPECT_EQ(f.counts.added, 1u);
  EXPECT_EQ(kinds(f), (std::map<std::string, std::string>{{"u1", "added"}}));
}

TEST_F(mailbox, a_line_that_holds_nothing_counts_the_additions_after_its_mark) {
  // Only additions after line2's mark, and line2 holds nothing: counted from
  // the history's entries (their counts) without listing the uids.
  upload(a.store, person, line1, {make_card("u3", "Zhao"), make_card("u4", "Sun")},
         store::upload_mode::delta);
  auto counted = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(counted) << describe(counted.error());
  EXPECT_EQ(counted->added, 4u);
  EXPECT_EQ(counted->changed, 0u);
  EXPECT_EQ(counted->removed, 0u);
  EXPECT_EQ(fetch(line2).counts.added, 4u);
}

TEST_F(mailbox, a_card_added_again_after_its_removal_is_fetched_once_after_a_count) {
  // u3 is added, removed and added again: its additions are two entries,
  // with the removal between them. The fetch after the update request takes
  // the request's counts and lists the uids; u3 is listed once.
  upload(a.store, person, line1,
         {make_card("u1", "Li"), make_card("u2", "Wang"), make_card("u3", "Zhao")});
  upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  upload(a.store, person, line1, {make_card("u3", "Zhao")}, store::upload_mode::delta);
  auto counted = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(counted) << describe(counted.error());
  EXPECT_EQ(counted->added, 3u);
  auto f = fetch(line2);
  EXPECT_EQ(f.changes.size(), 3u) << "a uid listed twice";
  EXPECT_EQ(kinds(f), (std::map<std::string, std::string>{
                          {"u1", "added"}, {"u2", "added"}, {"u3", "added"}}));
}

TEST_F(mailbox, a_line_that_holds_a_card_is_counted_card_by_card) {
  // line2's own card is an addition after its mark too, but line2 holds it:
  // not offered back, so not counted.
  upload(a.store, person, line2, {make_card("u9", "Qian")}, store::upload_mode::delta);
  upload(a.store, person, line1, {make_card("u3", "Zhao")}, store::upload_mode::delta);
  auto counted = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(counted) << describe(counted.error());
  EXPECT_EQ(counted->added, 3u) << "u1, u2 and u3; u9 is line2's own";
  EXPECT_EQ(kinds(fetch(line2)), (std::map<std::string, std::string>{
                                     {"u1", "added"}, {"u2", "added"}, {"u3", "added"}}));
}

TEST_F(mailbox, an_addition_written_without_its_count_is_counted_card_by_card) {
  // An entry of a release before additions carried their count.
  namespace field = store::history_fields;
  std::string listed = "2:u72:u8"; // netstrings of u7 and u8
  ASSERT_TRUE(
      a.client.call({"XADD", store::keys::history(person), "*", field::kind, "added",
                     field::origin, "carrier-b|+8613700137000", field::uids, listed}));
  auto counted = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(counted) << describe(counted.error());
  EXPECT_EQ(counted->added, 4u)
      << "u1 and u2, and u7 and u8 of the entry without a count";
}

TEST_F(mailbox, a_line_own_upload_clears_what_was_pending_for_it) {
  // line2 edits u1 itself before looking at its mailbox.
  upload(a.store, person, line2, {make_card("u1", "Li Si")}, store::upload_mode::delta);
  EXPECT_EQ(kinds(fetch(line2)), (std::map<std::string, std::string>{{"u2", "added"}}));
  EXPECT_EQ(kinds(fetch(line1)), (std::map<std::string, std::string>{{"u1", "changed"}}));
}

TEST_F(mailbox, fetch_of_another_account_line_is_refused) {
  auto r = a.store.fetch_pending(other_person, line2, proof_of(line2));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::bad_token);
}

// -- pages ---------------------------------------------------------------------

namespace {

struct pages : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line1);
    register_line(a.store, person, line2);
    upload(a.store, person, line1, book(7));
  }
  /// u1..un, named "Card i".
  static std::vector<core::book_entry> book(int n) {
    std::vector<core::book_entry> out;
    for (int i = 1; i <= n; ++i)
      out.push_back(make_card("u" + std::to_string(i), "Card " + std::to_string(i)));
    return out;
  }
  store::pending_fetch page(std::uint32_t limit, const std::string& next = "",
                            const std::string& known = "") {
    auto f = a.store.fetch_page(
        store::pending_request{person, line2, proof_of(line2), limit, next, known});
    EXPECT_TRUE(f) << describe(f.error());
    return f ? *f : store::pending_fetch{};
  }
  static std::set<std::string> uids(const store::pending_fetch& f) {
    std::set<std::string> out;
    for (const auto& c : f.changes)
      out.insert(c.uid);
    return out;
  }
  std::set<std::string> reassert_set() {
    auto r = a.client.call({"SMEMBERS", "reassert:{" + person + "}:" + line2});
    std::set<std::string> out;
    for (std::size_t i = 0; r && i < r->view().size(); ++i)
      out.insert(std::string(r->view()[i].str()));
    return out;
  }
  std::string base_of(const std::string& uid) {
    auto r = a.client.call({"HGET", "base:{" + person + "}:" + line2, uid});
    return r && !r->view().is_nil() ? std::string(r->view().str()) : "";
  }
  /// One step of line 2's ack of `cursor`: the next `n` uids of its list.
  caf::expected<store::ack_progress> step(const std::string& cursor, store::decision what,
                                          std::uint32_t n = 2) {
    return a.store.ack_step(person, line2, proof_of(line2), cursor, what, n);
  }
  /// The whole fetch, in pages of three.
  store::pending_fetch all_pages() {
    auto first = page(3);
    for (auto next = first.next; !next.empty();)
      next = page(3, next).next;
    return first;
  }
  carrier_store a{"carrier-a"};
};

} // namespace

TEST_F(pages, three_pages_share_one_cursor_and_the_counts_of_the_whole_fetch) {
  auto p1 = page(3);
  auto p2 = page(3, p1.next);
  auto p3 = page(3, p2.next);
  EXPECT_EQ(p1.changes.size(), 3u);
  EXPECT_EQ(p2.changes.size(), 3u);
  EXPECT_EQ(p3.changes.size(), 1u);
  EXPECT_FALSE(p1.next.empty());
  EXPECT_FALSE(p2.next.empty());
  EXPECT_TRUE(p3.next.empty());
  EXPECT_EQ(p2.cursor, p1.cursor);
  EXPECT_EQ(p3.cursor, p1.cursor);
  for (const auto* p : {&p1, &p2, &p3})
    EXPECT_EQ(p->counts.added, 7u);
  std::set<std::string> all;
  for (const auto* p : {&p1, &p2, &p3})
    for (const auto& uid : uids(*p))
      EXPECT_TRUE(all.insert(uid).second) << uid << " came twice";
  EXPECT_EQ(all.size(), 7u);
}

TEST_F(pages, without_a_limit_everything_comes_in_one_page) {
  auto f = page(0);
  EXPECT_EQ(f.changes.size(), 7u);
  EXPECT_TRUE(f.next.empty());
}

TEST_F(pages, the_ack_removes_exactly_what_the_pages_delivered) {
  auto p1 = page(3);
  // Between pages: a card new to the fetch, and an edit of one page 1 delivered.
  auto delivered = *uids(p1).begin();
  auto edited = book(7);
  for (auto& c : edited)
    if (c.uid == delivered)
      c = make_card(delivered, "Edited");
  edited.push_back(make_card("u8", "Card 8"));
  upload(a.store, person, line1, edited);
  auto p2 = page(3, p1.next);
  auto p3 = page(3, p2.next);
  EXPECT_EQ(uids(p2).count("u8") + uids(p3).count("u8"), 0u);
  // After the last page: one more.
  edited.push_back(make_card("u9", "Card 9"));
  upload(a.store, person, line1, edited);
  auto n = a.store.ack_pending(person, line2, proof_of(line2), p1.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n) << describe(n.error());
  EXPECT_EQ(*n, 7u);
  EXPECT_EQ(kinds(page(0)),
            (std::map<std::string, std::string>{
                {delivered, "changed"}, {"u8", "added"}, {"u9", "added"}}));
}

TEST_F(pages, a_change_to_a_card_of_a_later_page_comes_in_its_new_version) {
  auto p1 = page(3);
  std::string later;
  for (int i = 1; i <= 7 && later.empty(); ++i)
    if (!uids(p1).count("u" + std::to_string(i)))
      later = "u" + std::to_string(i);
  auto edited = book(7);
  for (auto& c : edited)
    if (c.uid == later)
      c = make_card(later, "Edited");
  upload(a.store, person, line1, edited);
  auto p2 = page(10, p1.next);
  ASSERT_TRUE(p2.next.empty());
  bool seen = false;
  for (const auto& c : p2.changes)
    if (c.uid == later) {
      seen = true;
      EXPECT_EQ(c.record.card, make_card(later, "Edited").card);
    }
  EXPECT_TRUE(seen);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), p1.cursor,
                                  store::decision::apply));
  EXPECT_TRUE(page(0).changes.empty());
  EXPECT_EQ(base_of(later), make_card(later, "Edited").hash.bytes());
}

TEST_F(pages, an_ack_before_the_last_page_leaves_the_undelivered_changes) {
  auto p1 = page(3);
  auto n = a.store.ack_pending(person, line2, proof_of(line2), p1.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 3u);
  auto rest = page(0);
  EXPECT_EQ(rest.changes.size(), 4u);
  for (const auto& uid : uids(p1))
    EXPECT_EQ(uids(rest).count(uid), 0u) << uid;
  // So does a discard: of the four left, the one never delivered stays.
  auto p2 = page(3);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), p2.cursor,
                                  store::decision::discard));
  auto last = page(0);
  EXPECT_EQ(last.changes.size(), 1u);
  for (const auto& uid : uids(p2))
    EXPECT_EQ(uids(last).count(uid), 0u) << uid;
}

TEST_F(pages, a_page_skipped_over_stays_pending_after_the_ack) {
  auto p1 = page(3);
  // The third page, asked for without the second.
  auto p3 = page(3, p1.cursor + ".6");
  ASSERT_EQ(p3.changes.size(), 1u);
  ASSERT_TRUE(p3.next.empty());
  auto n = a.store.ack_pending(person, line2, proof_of(line2), p1.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n) << describe(n.error());
  EXPECT_EQ(*n, 4u);
  auto rest = page(0);
  EXPECT_EQ(rest.changes.size(), 3u) << "the second page's changes";
  for (const auto* p : {&p1, &p3})
    for (const auto& uid : uids(*p))
      EXPECT_EQ(uids(rest).count(uid), 0u) << uid;
}

TEST_F(pages, a_fetch_after_an_update_delivers_exactly_what_it_counted) {
  // line2's own version of u1: the history names u1 again, and line2 holds it.
  upload(a.store, person, line2, {make_card("u1", "Mine")}, store::upload_mode::delta);
  auto counted = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(counted) << describe(counted.error());
  EXPECT_EQ(counted->added, 6u);

  auto p = page(3);
  EXPECT_EQ(p.counts.added, 6u);
  EXPECT_EQ(p.counts.changed, 0u);
  std::set<std::string> all = uids(p);
  while (!p.next.empty()) {
    p = page(3, p.next);
    EXPECT_LE(p.changes.size(), 3u);
    EXPECT_EQ(p.counts.added, 6u);
    for (const auto& uid : uids(p))
      EXPECT_TRUE(all.insert(uid).second) << uid << " came twice";
  }
  EXPECT_EQ(all, (std::set<std::string>{"u2", "u3", "u4", "u5", "u6", "u7"}));
  auto n = a.store.ack_pending(person, line2, proof_of(line2), p.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n) << describe(n.error());
  EXPECT_EQ(*n, 6u);
  EXPECT_TRUE(page(0).changes.empty());
  auto after = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->added + after->changed + after->removed, 0u);
}

// -- a new line's book, listed by its history entries -----------------------------

namespace {

/// Line 1's book in three history entries (u1..u7, then u8..u10 and
/// u11..u13 added by two later uploads), counted by line 2's update request
/// first, as a phone does: its fetch lists the entries, and the uids of each
/// only once a page or an ack step reaches it.
struct entry_pages : pages {
  void SetUp() override {
    pages::SetUp();
    upload(a.store, person, line1, cards(8, 10), store::upload_mode::delta);
    upload(a.store, person, line1, cards(11, 13), store::upload_mode::delta);
    auto counted = a.store.request_update(person, line2, proof_of(line2));
    ASSERT_TRUE(counted) << describe(counted.error());
    ASSERT_EQ(counted->added, 13u);
  }
  static std::vector<core::book_entry> cards(int from, int to) {
    std::vector<core::book_entry> out;
    for (int i = from; i <= to; ++i)
      out.push_back(make_card("u" + std::to_string(i), "Card " + std::to_string(i)));
    return out;
  }
  static std::set<std::string> all_uids() {
    std::set<std::string> out;
    for (int i = 1; i <= 13; ++i)
      out.insert("u" + std::to_string(i));
    return out;
  }
  long long length_of(const std::string& key) {
    auto r = a.client.call({"LLEN", key});
    return r ? r->view().integer() : -1;
  }
  /// The history's entry ids, oldest first.
  std::vector<std::string> history_ids() {
    auto r = a.client.call({"XRANGE", store::keys::history(person), "-", "+"});
    std::vector<std::string> out;
    for (std::size_t i = 0; r && i < r->view().size(); ++i)
      out.emplace_back(r->view()[i][0].str());
    return out;
  }
};

} // namespace

TEST_F(entry_pages, each_card_comes_once_and_the_entries_are_listed_as_pages_reach_them) {
  auto p = page(2);
  // The first page listed the first entry's seven uids, not the book's 13.
  EXPECT_EQ(length_of(store::keys::fetchlist(person, line2)), 7);
  EXPECT_EQ(length_of(store::keys::fetchrest(person, line2)), 2);
  std::set<std::string> all = uids(p);
  EXPECT_EQ(p.changes.size(), 2u);
  int pages_read = 1;
  while (!p.next.empty()) {
    p = page(2, p.next);
    ++pages_read;
    EXPECT_LE(p.changes.size(), 2u);
    EXPECT_EQ(p.counts.added, 13u);
    for (const auto& uid : uids(p))
      EXPECT_TRUE(all.insert(uid).second) << uid << " came twice";
  }
  EXPECT_EQ(pages_read, 7);
  EXPECT_EQ(all, all_uids());
  EXPECT_EQ(length_of(store::keys::fetchrest(person, line2)), 0);
  auto n = a.store.ack_pending(person, line2, proof_of(line2), p.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n) << describe(n.error());
  EXPECT_EQ(*n, 13u);
  for (const auto& uid : all_uids())
    EXPECT_FALSE(base_of(uid).empty()) << uid;
  EXPECT_TRUE(page(0).changes.empty());
  auto fields = a.client.call({"HGET", store::keys::line(person, line2), "fetch_rest"});
  ASSERT_TRUE(fields);
  EXPECT_TRUE(fields->view().is_nil()) << "the fetch is over";
}

TEST_F(entry_pages, an_ack_in_steps_after_the_first_page_leaves_the_rest_of_the_book) {
  auto p1 = page(2);
  std::uint64_t acked = 0;
  int steps = 0;
  for (bool finished = false; !finished; ++steps) {
    auto s = step(p1.cursor, store::decision::apply, 4);
    ASSERT_TRUE(s) << describe(s.error());
    acked += s->acknowledged;
    finished = s->finished;
  }
  EXPECT_EQ(steps, 4) << "the list's 13 uids, four at a time";
  EXPECT_EQ(acked, 2u) << "only what the page delivered";
  EXPECT_EQ(length_of(store::keys::fetchrest(person, line2)), 0);
  auto rest = page(0);
  EXPECT_EQ(rest.changes.size(), 11u);
  auto expected = all_uids();
  for (const auto& uid : uids(p1)) {
    EXPECT_EQ(uids(rest).count(uid), 0u) << uid;
    expected.erase(uid);
  }
  EXPECT_EQ(uids(rest), expected);
}

TEST_F(entry_pages, a_history_trimmed_under_the_fetch_stops_it_and_loses_nothing) {
  auto p = page(2);
  auto ids = history_ids();
  ASSERT_EQ(ids.size(), 3u);
  // The history's policy drops its oldest entries: the first two go.
  ASSERT_TRUE(a.client.call({"XTRIM", store::keys::history(person), "MINID", ids[2]}));
  // The first entry's uids were listed with the first page: pages go on.
  p = page(2, p.next);
  p = page(2, p.next);
  ASSERT_EQ(p.changes.size(), 2u);
  // The next page needs the second entry's, which is gone.
  auto refused = a.store.fetch_page(
      store::pending_request{person, line2, proof_of(line2), 2, p.next, ""});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), ec::stale_cursor);
  auto ack = a.store.ack_pending(person, line2, proof_of(line2), p.cursor,
                                 store::decision::apply);
  ASSERT_FALSE(ack);
  EXPECT_EQ(ack.error(), ec::stale_cursor);
  EXPECT_TRUE(base_of("u1").empty()) << "the refused ack applied nothing";
  // A new fetch: the history no longer reaches the line's mark, so the
  // whole book is offered to the line, which holds none of it.
  auto again = page(0);
  EXPECT_EQ(uids(again), all_uids());
}

TEST_F(pages, a_next_of_an_older_fetch_is_refused) {
  auto old = page(3);
  auto fresh = page(3);
  auto r = a.store.fetch_page(
      store::pending_request{person, line2, proof_of(line2), 3, old.next, ""});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::stale_cursor);
  auto after_ack = page(3, fresh.next);
  EXPECT_EQ(after_ack.cursor, fresh.cursor);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), fresh.cursor,
                                  store::decision::apply));
  auto late = a.store.fetch_page(
      store::pending_request{person, line2, proof_of(line2), 3, fresh.next, ""});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error(), ec::stale_cursor);
}

TEST_F(pages, a_current_tag_is_not_modified_and_keeps_the_fetch_open) {
  auto f = page(0);
  ASSERT_FALSE(f.tag.empty());
  auto same = page(0, "", f.tag);
  EXPECT_TRUE(same.not_modified);
  EXPECT_TRUE(same.changes.empty());
  EXPECT_EQ(same.cursor, f.cursor);
  EXPECT_EQ(same.tag, f.tag);
  // A change: the tag moves, and the answer is a new fetch.
  upload(a.store, person, line1, {make_card("u1", "Edited")}, store::upload_mode::delta);
  auto moved = page(0, "", f.tag);
  EXPECT_FALSE(moved.not_modified);
  EXPECT_NE(moved.tag, f.tag);
  EXPECT_NE(moved.cursor, f.cursor);
  // The ack shrinks the mailbox: the tag moves again.
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), moved.cursor,
                                  store::decision::apply));
  EXPECT_FALSE(page(0, "", moved.tag).not_modified);
}

TEST_F(pages, a_not_modified_answer_leaves_the_previous_cursor_valid) {
  auto f = page(0);
  ASSERT_TRUE(page(0, "", f.tag).not_modified);
  auto n = a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n) << describe(n.error());
  EXPECT_EQ(*n, 7u);
}

// -- the ack and a newer upload of the line --------------------------------------

TEST_F(mailbox, apply_does_not_move_the_base_over_the_line_own_newer_upload) {
  // line2 holds u1 as "Li" (v1); line1 edits it to "Li Lei" (v2).
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), fetch(line2).cursor,
                                  store::decision::apply));
  upload(a.store, person, line1, {make_card("u1", "Li Lei"), make_card("u2", "Wang Wu")});
  auto f = fetch(line2);
  ASSERT_EQ(kinds(f),
            (std::map<std::string, std::string>{{"u1", "changed"}, {"u2", "changed"}}));
  // Before acking, line2 uploads its own u1, "Li Si" (v3).
  upload(a.store, person, line2, {make_card("u1", "Li Si")}, store::upload_mode::delta);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  auto base = hash_fields(a.client, "base:{" + person + "}:" + line2);
  EXPECT_EQ(base["u1"], make_card("u1", "Li Si").hash.bytes()) << "the ack undid v3";
  EXPECT_EQ(base["u2"], make_card("u2", "Wang Wu").hash.bytes()) << "u2 was applied";
  // What line2 holds is no change to the store.
  auto r = upload(a.store, person, line2,
                  {make_card("u1", "Li Si"), make_card("u2", "Wang Wu")});
  EXPECT_EQ(r.unchanged, 2u);
  EXPECT_EQ(r.added + r.changed + r.removed, 0u);
}

// -- discard: keep mine -----------------------------------------------------------

TEST_F(pages, discard_remembers_exactly_the_fetched_uids_for_reassertion) {
  auto p1 = page(3);
  auto p2 = page(2, p1.next);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), p1.cursor,
                                  store::decision::discard));
  auto expected = uids(p1);
  for (const auto& uid : uids(p2))
    expected.insert(uid);
  EXPECT_EQ(expected.size(), 5u);
  EXPECT_EQ(reassert_set(), expected);
}

TEST_F(pages, apply_leaves_the_reassert_set_alone) {
  ASSERT_TRUE(a.client.call({"SADD", "reassert:{" + person + "}:" + line2, "older"}));
  auto f = page(0);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::apply));
  EXPECT_EQ(reassert_set(), (std::set<std::string>{"older"}));
}

TEST_F(pages, removing_the_line_forgets_its_reassert_set_and_open_fetch) {
  auto f = page(3);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f.cursor,
                                  store::decision::discard));
  page(3); // an open paged fetch
  ASSERT_TRUE(a.store.remove_line(person, line2, proof_of(line2), {}));
  for (const auto& key :
       {store::keys::reassert(person, line2), store::keys::fetchlist(person, line2),
        store::keys::fetchrest(person, line2), store::keys::fetched(person, line2)}) {
    auto r = a.client.call({"EXISTS", key});
    EXPECT_EQ(r->view().integer(), 0) << key;
  }
}

// -- an ack in steps --------------------------------------------------------------

TEST_F(pages, an_ack_in_steps_does_what_one_ack_does) {
  auto f = all_pages();
  // Counts kept while the fetch is open: a step must not leave them standing.
  auto counted = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->added, 7u);
  std::vector<std::pair<std::uint64_t, bool>> steps;
  for (int i = 0; i < 4; ++i) {
    auto s = step(f.cursor, store::decision::apply);
    ASSERT_TRUE(s) << describe(s.error());
    steps.emplace_back(s->acknowledged, s->finished);
    if (i == 1) {
      auto mid = a.store.request_update(person, line2, proof_of(line2));
      ASSERT_TRUE(mid);
      EXPECT_EQ(mid->added, 3u) << "four applied, three to go";
    }
  }
  EXPECT_EQ(steps, (std::vector<std::pair<std::uint64_t, bool>>{
                       {2, false}, {2, false}, {2, false}, {1, true}}));
  auto left =
      a.client.call({"HMGET", store::keys::line(person, line2), "fetched", "ack_state"});
  ASSERT_TRUE(left);
  EXPECT_TRUE(left->view()[0].is_nil()) << "the fetch is over";
  EXPECT_TRUE(left->view()[1].is_nil()) << "no progress left behind";
  EXPECT_FALSE(step(f.cursor, store::decision::apply));
  EXPECT_TRUE(page(0).changes.empty());
  for (const auto& card : book(7))
    EXPECT_EQ(base_of(card.uid), card.hash.bytes()) << card.uid;
}

TEST_F(pages, a_discard_in_steps_keeps_the_lines_own_and_empties_the_mailbox) {
  auto f = all_pages();
  for (bool finished = false; !finished;) {
    auto s = step(f.cursor, store::decision::discard, 3);
    ASSERT_TRUE(s) << describe(s.error());
    finished = s->finished;
  }
  EXPECT_TRUE(page(0).changes.empty());
  EXPECT_EQ(reassert_set().size(), 7u);
  EXPECT_EQ(base_of("u1"), "");
}

TEST_F(pages, the_steps_of_an_ack_take_one_decision) {
  auto f = all_pages();
  ASSERT_TRUE(step(f.cursor, store::decision::apply));
  auto other = step(f.cursor, store::decision::discard);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error(), ec::stale_cursor);
  EXPECT_TRUE(reassert_set().empty()) << "the refused step did nothing";
  std::uint64_t rest = 0;
  for (bool finished = false; !finished;) {
    auto s = step(f.cursor, store::decision::apply);
    ASSERT_TRUE(s) << describe(s.error());
    rest += s->acknowledged;
    finished = s->finished;
  }
  EXPECT_EQ(rest, 5u);
  EXPECT_TRUE(page(0).changes.empty());
}

TEST_F(pages, a_new_fetch_between_steps_ends_the_ack_and_loses_nothing) {
  auto f = all_pages();
  ASSERT_TRUE(step(f.cursor, store::decision::apply)); // two applied
  auto again = page(0);
  EXPECT_EQ(again.changes.size(), 5u) << "what the first step applied is held";
  auto stale = step(f.cursor, store::decision::apply);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error(), ec::stale_cursor);
  auto n = a.store.ack_pending(person, line2, proof_of(line2), again.cursor,
                               store::decision::apply);
  ASSERT_TRUE(n) << describe(n.error());
  EXPECT_EQ(*n, 5u);
  EXPECT_TRUE(page(0).changes.empty());
  for (const auto& card : book(7))
    EXPECT_EQ(base_of(card.uid), card.hash.bytes()) << card.uid;
}

TEST_F(pages, an_ack_in_steps_before_the_last_page_leaves_the_undelivered_changes) {
  auto p1 = page(3);
  std::uint64_t acked = 0;
  int steps = 0;
  for (bool finished = false; !finished; ++steps) {
    auto s = step(p1.cursor, store::decision::apply);
    ASSERT_TRUE(s) << describe(s.error());
    acked += s->acknowledged;
    finished = s->finished;
  }
  EXPECT_EQ(steps, 4) << "the list's seven uids, two at a time";
  EXPECT_EQ(acked, 3u);
  auto rest = page(0);
  EXPECT_EQ(rest.changes.size(), 4u);
  for (const auto& uid : uids(p1))
    EXPECT_EQ(uids(rest).count(uid), 0u) << uid;
}

TEST_F(pages, an_ack_step_with_another_lines_proof_is_refused_and_changes_nothing) {
  auto f = all_pages();
  for (std::string proof :
       {proof_of(line1), std::string("x"), std::string(store::operator_proof)}) {
    auto s = a.store.ack_step(person, line2, proof, f.cursor, store::decision::apply, 2);
    ASSERT_FALSE(s) << "proof '" << proof << "'";
    EXPECT_EQ(s.error(), ec::bad_token);
  }
  EXPECT_EQ(base_of("u1"), "");
  auto s = step(f.cursor, store::decision::apply, 0);
  ASSERT_TRUE(s) << describe(s.error());
  EXPECT_EQ(s->acknowledged, 7u) << "the fetch was still whole";
}
