// F5 update request and F6 fetch / ack against a real redis-server.
#include "tests/integration/store/store_fixture.hpp"

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line1 = "+8613800138000";
const std::string line2 = "+8613900139000";

struct mailbox : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line1);
    register_line(a.store, person, line2);
    upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  }
  store::pending_fetch fetch(const std::string& line) {
    auto f = a.store.fetch_pending(person, line);
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

TEST_F(mailbox, the_mailbox_holds_references_not_copies_of_the_cards) {
  // The shared store holds every pending card already: a copy here would
  // double the account's memory for each line.
  auto entries = pending_entries(a.client, person, line2);
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& [uid, value] : entries) {
    EXPECT_TRUE(is_sequence_number(value)) << uid << " -> " << value;
    EXPECT_EQ(value.find("VCARD"), std::string::npos) << uid;
  }
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
  auto n = a.store.ack_pending(person, line2, f.cursor, store::decision::apply);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 2u);
  auto entries = pending_entries(a.client, person, line2);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(is_sequence_number(entries["u2"])) << entries["u2"];
  auto next = fetch(line2);
  EXPECT_EQ(kinds(next), (std::map<std::string, std::string>{{"u2", "changed"}}));
  ASSERT_EQ(next.changes.size(), 1u);
  EXPECT_EQ(next.changes[0].record.card, make_card("u2", "Wang Wu").card);
}

TEST_F(mailbox, an_entry_whose_card_is_not_in_the_shared_store_is_dropped) {
  ASSERT_TRUE(a.client.call({"HSET", "pending:{" + person + "}:" + line2, "ghost", "7"}));
  EXPECT_EQ(a.store.request_update(person, line2)->added, 2u);
  EXPECT_EQ(kinds(fetch(line2)),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
  EXPECT_EQ(pending_entries(a.client, person, line2).count("ghost"), 0u);
}

TEST_F(mailbox, apply_moves_the_base_and_empties_the_mailbox) {
  auto f = fetch(line2);
  auto n = a.store.ack_pending(person, line2, f.cursor, store::decision::apply);
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
  ASSERT_TRUE(a.store.ack_pending(person, line2, f.cursor, store::decision::discard));
  EXPECT_TRUE(fetch(line2).changes.empty());
  auto counts = a.store.request_update(person, line2);
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
  ASSERT_TRUE(a.store.ack_pending(person, line2, f.cursor, store::decision::apply));
  auto next = fetch(line2);
  // u1 was applied in its fetched version, so the newer one is a change.
  EXPECT_EQ(kinds(next),
            (std::map<std::string, std::string>{{"u1", "changed"}, {"u3", "added"}}));
}

TEST_F(mailbox, an_old_cursor_is_refused_and_changes_nothing) {
  auto first = fetch(line2);
  auto second = fetch(line2);
  auto r = a.store.ack_pending(person, line2, first.cursor, store::decision::apply);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::stale_cursor);
  EXPECT_EQ(fetch(line2).changes.size(), 2u);
  auto bogus =
      a.store.ack_pending(person, line2, "not-a-cursor", store::decision::discard);
  ASSERT_FALSE(bogus);
  EXPECT_EQ(bogus.error(), ec::stale_cursor);
}

TEST_F(mailbox, an_ack_is_used_once) {
  auto f = fetch(line2);
  ASSERT_TRUE(a.store.ack_pending(person, line2, f.cursor, store::decision::apply));
  auto again = a.store.ack_pending(person, line2, f.cursor, store::decision::apply);
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

TEST_F(mailbox, a_line_own_upload_clears_what_was_pending_for_it) {
  // line2 edits u1 itself before looking at its mailbox.
  upload(a.store, person, line2, {make_card("u1", "Li Si")}, store::upload_mode::delta);
  EXPECT_EQ(kinds(fetch(line2)), (std::map<std::string, std::string>{{"u2", "added"}}));
  EXPECT_EQ(kinds(fetch(line1)), (std::map<std::string, std::string>{{"u1", "changed"}}));
}

TEST_F(mailbox, fetch_of_another_account_line_is_refused) {
  auto r = a.store.fetch_pending(other_person, line2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::unknown_line);
}
