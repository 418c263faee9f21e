// F3 outbox and F4 replicate-in between two carriers, each with its own
// redis-server. The test carries outbox entries as the peer link would.
#include "store/outbox.hpp"
#include "tests/integration/store/store_fixture.hpp"

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";
const std::string line_b = "+8618600186000";

struct two_carriers : ::testing::Test {
  void SetUp() override {
    // Each registration announces the new account to the other carrier; the
    // one that learns of a sibling it did not know answers once.
    register_line(a.store, person, line_a, {"carrier-b"});
    register_line(b.store, person, line_b, {"carrier-a"});
    EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 1u);
    deliver(a, b);
    deliver(b, a);
    deliver(a, b);
    deliver(b, a);
    EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 0u);
    EXPECT_EQ(*store::outbox_depth(b.client, "carrier-a"), 0u);
    for (auto* c : {&a, &b}) {
      auto dir = c->client.call({"SCARD", "dir:{" + person + "}"});
      EXPECT_EQ(dir->view().integer(), 1);
    }
  }

  /// Carries every outbox entry from `from` to `to`, as a peer link does;
  /// returns the summed result of the batches.
  store::replicate_result deliver(carrier_store& from, carrier_store& to,
                                  bool trim = true) {
    store::replicate_result sum;
    const auto& to_id = to.store.carrier();
    auto entries = store::read_outbox(from.client, to_id, "0-0", 1000);
    EXPECT_TRUE(entries);
    for (const auto& e : *entries) {
      if (e.kind == store::outbox_kind::announce) {
        EXPECT_TRUE(to.store.add_sibling(e.idcode, from.store.carrier()));
        continue;
      }
      if (e.kind == store::outbox_kind::retire) {
        EXPECT_TRUE(to.store.remove_sibling(e.idcode, from.store.carrier()));
        continue;
      }
      auto r = to.store.replicate_in(e.idcode, e.batch);
      EXPECT_TRUE(r) << describe(r.error());
      sum.applied += r->applied;
      sum.identical += r->identical;
      sum.stale += r->stale;
    }
    if (trim && !entries->empty()) {
      EXPECT_TRUE(store::trim_outbox(from.client, to_id, entries->back().id));
    }
    return sum;
  }

  carrier_store a{"carrier-a"};
  carrier_store b{"carrier-b"};
};

} // namespace

TEST_F(two_carriers, a_shared_upload_reaches_the_sibling_pending_mailbox) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 1u);
  auto r = deliver(a, b);
  EXPECT_EQ(r.applied, 2u);
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 0u);
  auto f = b.store.fetch_pending(person, line_b);
  EXPECT_EQ(kinds(*f),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
  EXPECT_EQ(shared_records(a.client, person), shared_records(b.client, person));
}

TEST_F(two_carriers, the_sibling_mailbox_holds_a_reference_to_its_shared_store) {
  const auto card = make_card("u1", "Li");
  upload(a.store, person, line_a, {card});
  EXPECT_EQ(deliver(a, b).applied, 1u);
  auto entries = pending_entries(b.client, person, line_b);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(is_sequence_number(entries["u1"])) << entries["u1"];
  EXPECT_EQ(entries["u1"].find(card.card), std::string::npos);
  auto f = b.store.fetch_pending(person, line_b);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->changes.size(), 1u);
  EXPECT_EQ(f->changes[0].uid, "u1");
  EXPECT_EQ(f->changes[0].record.card, card.card);
  EXPECT_EQ(f->changes[0].record.st.carrier, "carrier-a");
}

TEST_F(two_carriers, a_duplicate_delivery_changes_nothing) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b, false);
  auto f = b.store.fetch_pending(person, line_b);
  ASSERT_TRUE(b.store.ack_pending(person, line_b, f->cursor, store::decision::apply));
  auto before = shared_records(b.client, person);
  auto again = deliver(a, b);
  EXPECT_EQ(again.applied, 0u);
  EXPECT_EQ(again.identical, 1u);
  EXPECT_EQ(shared_records(b.client, person), before);
  EXPECT_TRUE(b.store.fetch_pending(person, line_b)->changes.empty());
}

TEST_F(two_carriers, private_uploads_do_not_travel) {
  upload(a.store, person, line_a, {make_card("p1", "Doctor")},
         store::upload_mode::snapshot, store::scope::private_backup);
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 0u);
}

TEST_F(two_carriers, concurrent_edits_converge_and_the_loser_is_kept) {
  upload(a.store, person, line_a, {make_card("u1", "Li A")}, store::upload_mode::snapshot,
         store::scope::shared, 1'700'000'000'000);
  upload(b.store, person, line_b, {make_card("u1", "Li B")}, store::upload_mode::snapshot,
         store::scope::shared, 1'700'000'000'500);
  deliver(a, b);
  deliver(b, a);
  auto sa = shared_records(a.client, person);
  EXPECT_EQ(sa, shared_records(b.client, person));
  EXPECT_NE(sa["u1"].find("Li B"), std::string::npos); // the later stamp wins
  auto history = b.client.call({"XLEN", "history:{" + person + "}"});
  EXPECT_EQ(history->view().integer(), 1); // A's edit lost at B, kept
  history = a.client.call({"XLEN", "history:{" + person + "}"});
  EXPECT_EQ(history->view().integer(), 1); // and A's own version, overwritten at A
}

TEST_F(two_carriers, a_removal_travels_and_shows_as_removed) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  deliver(a, b);
  auto f = b.store.fetch_pending(person, line_b);
  ASSERT_TRUE(b.store.ack_pending(person, line_b, f->cursor, store::decision::apply));
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b);
  EXPECT_EQ(kinds(*b.store.fetch_pending(person, line_b)),
            (std::map<std::string, std::string>{{"u2", "removed"}}));
  EXPECT_EQ(b.store.read_cards(person, line_b, store::scope::shared)->size(), 1u);
}

TEST_F(two_carriers, a_new_sibling_is_bootstrapped_with_the_whole_store) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  carrier_store c("carrier-c");
  register_line(c.store, person, "+8615000150000", {"carrier-a", "carrier-b"});
  deliver(c, a);
  auto r = deliver(a, c);
  EXPECT_EQ(r.applied, 2u);
  EXPECT_FALSE(*a.store.add_sibling(person, "carrier-c")); // known from now on
  EXPECT_EQ(c.store.fetch_pending(person, "+8615000150000")->changes.size(), 2u);
}

TEST_F(two_carriers, a_malformed_batch_is_refused_and_changes_nothing) {
  for (std::string bad : {"5:u1", "2:u14:junk", "x:u1", "-3:abc"}) {
    auto r = b.store.replicate_in(person, bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error(), ec::invalid_request);
  }
  EXPECT_TRUE(shared_records(b.client, person).empty());
}

TEST_F(two_carriers, an_announcement_to_a_carrier_without_the_account_is_not_answered) {
  carrier_store c("carrier-c");
  auto added = c.store.add_sibling(person, "carrier-a");
  ASSERT_TRUE(added);
  EXPECT_TRUE(*added);
  EXPECT_EQ(*store::outbox_depth(c.client, "carrier-a"), 0u);
  // When the person registers at carrier-c later, carrier-a hears of it.
  register_line(c.store, person, "+8615000150000", {"carrier-a", "carrier-b"});
  EXPECT_EQ(*store::outbox_depth(c.client, "carrier-a"), 1u);
}

TEST_F(two_carriers, a_retired_sibling_gets_nothing_more_until_it_registers_again) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b);
  ASSERT_TRUE(*b.store.remove_line(person, line_b)); // B's only line: the account goes
  deliver(b, a);                                     // the retirement
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 0u);
  // The person registers at B again: B announces, A bootstraps it with the whole store.
  register_line(b.store, person, line_b, {"carrier-a"});
  deliver(b, a);
  deliver(a, b);
  EXPECT_EQ(kinds(*b.store.fetch_pending(person, line_b)),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
}

TEST_F(two_carriers, a_batch_for_an_account_this_carrier_lacks_is_dropped) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  auto entries = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  auto r = b.store.replicate_in(other_person, entries->front().batch);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->applied, 0u);
  EXPECT_TRUE(shared_records(b.client, other_person).empty());
}

TEST_F(two_carriers, the_outbox_survives_a_redis_crash_with_aof) {
  carrier_store durable("carrier-a", redis_server::options{true});
  register_line(durable.store, person, line_a, {"carrier-b"});
  ASSERT_TRUE(durable.store.add_sibling(person, "carrier-b"));
  upload(durable.store, person, line_a, {make_card("u1", "Li")});
  durable.server.restart(/*crash=*/true);
  auto client = durable.server.connect();
  // The announcement, the answer to carrier-b's, and the upload's batch.
  EXPECT_EQ(*store::outbox_depth(client, "carrier-b"), 3u);
  EXPECT_EQ(shared_records(client, person).size(), 1u);
}
