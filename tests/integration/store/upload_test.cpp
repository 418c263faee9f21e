// F2 shared upload and F7 private upload against a real redis-server.
#include "tests/integration/store/store_fixture.hpp"

#include <set>

using namespace simsync;
using namespace simsync::testing;

TEST_F(two_lines, snapshot_counts_added_changed_removed_unchanged) {
  auto first =
      upload(a.store, person, line1,
             {make_card("u1", "Li"), make_card("u2", "Wang"), make_card("u3", "Zhao")});
  EXPECT_EQ(first.added, 3u);
  EXPECT_EQ(first.version, 1u);
  auto second = upload(
      a.store, person, line1,
      {make_card("u1", "Li"), make_card("u2", "Wang Wu"), make_card("u4", "Qian")});
  EXPECT_EQ(second.added, 1u);
  EXPECT_EQ(second.changed, 1u);
  EXPECT_EQ(second.removed, 1u);
  EXPECT_EQ(second.unchanged, 1u);
  EXPECT_EQ(second.version, 2u);
  auto shared = a.store.read_cards(person, line1, proof_of(line1), store::scope::shared);
  ASSERT_TRUE(shared);
  std::map<std::string, std::string> cards;
  for (auto& c : *shared)
    cards[c.uid] = c.record.card;
  EXPECT_EQ(cards.size(), 3u);
  EXPECT_EQ(cards["u2"], make_card("u2", "Wang Wu").card);
  EXPECT_EQ(cards.count("u3"), 0u);
}

TEST_F(two_lines, identical_reupload_changes_nothing_and_fills_no_mailbox) {
  std::vector<core::book_entry> book{make_card("u1", "Li"), make_card("u2", "Wang")};
  upload(a.store, person, line1, book);
  auto before = shared_records(a.client, person);
  auto ack = a.store.fetch_pending(person, line2, proof_of(line2));
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), ack->cursor,
                                  store::decision::apply));

  auto again = upload(a.store, person, line1, book, store::upload_mode::snapshot,
                      store::scope::shared, 1'800'000'000'000);
  EXPECT_EQ(again.unchanged, 2u);
  EXPECT_EQ(again.added + again.changed + again.removed, 0u);
  EXPECT_EQ(again.version, 1u);
  EXPECT_EQ(shared_records(a.client, person), before);
  auto pending = a.store.fetch_pending(person, line2, proof_of(line2));
  EXPECT_TRUE(pending->changes.empty());
}

TEST_F(two_lines, other_line_gets_the_changes_and_the_uploader_never_gets_its_own) {
  upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  auto mine = a.store.fetch_pending(person, line1, proof_of(line1));
  ASSERT_TRUE(mine);
  EXPECT_TRUE(mine->changes.empty());
  auto theirs = a.store.request_update(person, line2, proof_of(line2));
  ASSERT_TRUE(theirs);
  EXPECT_EQ(theirs->added, 2u);
  EXPECT_EQ(theirs->changed + theirs->removed, 0u);
}

TEST_F(two_lines, a_snapshot_without_cards_the_line_never_applied_deletes_nothing) {
  upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  // line2 has not applied u1, u2: its own book is just u9.
  auto r = upload(a.store, person, line2, {make_card("u9", "Sun")});
  EXPECT_EQ(r.added, 1u);
  EXPECT_EQ(r.removed, 0u);
  EXPECT_EQ(shared_records(a.client, person).size(), 3u);
  // After a discard the same holds: discarding leaves the base alone.
  auto f = a.store.fetch_pending(person, line2, proof_of(line2));
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f->cursor,
                                  store::decision::discard));
  r = upload(a.store, person, line2, {make_card("u9", "Sun")});
  EXPECT_EQ(r.removed, 0u);
  EXPECT_EQ(r.unchanged, 1u);
  EXPECT_EQ(
      a.store.read_cards(person, line2, proof_of(line2), store::scope::shared)->size(),
      3u);
}

TEST_F(two_lines, applied_cards_missing_from_a_snapshot_are_deleted) {
  upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  auto f = a.store.fetch_pending(person, line2, proof_of(line2));
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f->cursor,
                                  store::decision::apply));
  auto r = upload(a.store, person, line2, {make_card("u1", "Li")});
  EXPECT_EQ(r.removed, 1u);
  EXPECT_EQ(r.unchanged, 1u);
  auto live = a.store.read_cards(person, line1, proof_of(line1), store::scope::shared);
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ(live->front().uid, "u1");
  auto back = a.store.fetch_pending(person, line1, proof_of(line1));
  EXPECT_EQ(kinds(*back), (std::map<std::string, std::string>{{"u2", "removed"}}));
}

TEST_F(two_lines, a_book_with_rejected_cards_removes_nothing) {
  upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  store::upload_request req;
  req.idcode = person;
  req.line = line1;
  req.token_hash = proof_of(line1);
  req.cards = {make_card("u1", "Li")};
  req.allow_removals = false; // u2 may be the card that failed to parse
  auto r = a.store.upload(req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->removed, 0u);
  EXPECT_EQ(shared_records(a.client, person).size(), 2u);
}

TEST_F(two_lines, an_upload_that_changes_nothing_writes_nothing) {
  // Nothing to append to the AOF, so nothing to wait for on the disk.
  auto writes = [&] {
    return std::stoull(
        info_field(a.client, "persistence", "rdb_changes_since_last_save"));
  };
  std::vector<core::book_entry> book{make_card("u1", "Li"), make_card("u2", "Wang")};
  upload(a.store, person, line1, book);
  auto before = writes();
  auto again = upload(a.store, person, line1, book);
  EXPECT_EQ(again.unchanged, 2u);
  EXPECT_EQ(writes(), before);
  upload(a.store, person, line1, {make_card("u1", "Li Lei")}, store::upload_mode::delta);
  EXPECT_GT(writes(), before);
}

TEST_F(two_lines, delta_adds_and_changes_and_remove_deletes_by_uid) {
  upload(a.store, person, line1, {make_card("u1", "Li"), make_card("u2", "Wang")});
  auto d = upload(a.store, person, line1, {make_card("u3", "Zhou")},
                  store::upload_mode::delta);
  EXPECT_EQ(d.added, 1u);
  EXPECT_EQ(d.removed, 0u);
  store::upload_request req;
  req.idcode = person;
  req.line = line1;
  req.token_hash = proof_of(line1);
  req.mode = store::upload_mode::remove;
  req.uids = {"u1", "no-such-uid"};
  auto r = a.store.upload(req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->removed, 1u);
  EXPECT_EQ(
      a.store.read_cards(person, line1, proof_of(line1), store::scope::shared)->size(),
      2u);
}

TEST_F(two_lines, history_keeps_the_order_of_a_delta_that_adds_and_changes) {
  upload(a.store, person, line1, {make_card("b", "Li"), make_card("d", "Wang")});
  upload(a.store, person, line1,
         {make_card("a1", "Zhou"), make_card("b", "Li Lei"), make_card("c1", "Qian"),
          make_card("d", "Wang Wu"), make_card("e1", "Sun")},
         store::upload_mode::delta);
  std::vector<std::string> noted; // kind:uid, in the stream's order
  for (const auto& n : history_notes(a.client, person))
    noted.push_back(n.kind + ":" + n.uid);
  EXPECT_EQ(noted,
            (std::vector<std::string>{"added:b", "added:d", "added:a1", "changed:b",
                                      "added:c1", "changed:d", "added:e1"}));
}

TEST_F(two_lines, an_upload_behind_the_account_clock_is_stamped_past_it) {
  // The account's clock is past this upload's now (a later upload here, or a
  // sibling's stamps): its cards are stamped past the clock, shared and
  // private alike, and stored whole.
  const std::uint64_t later_ms = 1'800'000'000'000, earlier_ms = 1'700'000'000'000;
  const auto later_hlc = later_ms * core::hlc_logical_per_ms;
  upload(a.store, person, line1, {make_card("u1", "Li")}, store::upload_mode::snapshot,
         store::scope::shared, later_ms);
  upload(a.store, person, line1, {make_card("u2", "Wang")}, store::upload_mode::delta,
         store::scope::shared, earlier_ms);
  upload(a.store, person, line1, {make_card("p1", "Zhao")}, store::upload_mode::snapshot,
         store::scope::private_backup, earlier_ms);
  for (auto [where, uid, card] :
       {std::tuple{store::scope::shared, "u2", make_card("u2", "Wang").card},
        std::tuple{store::scope::private_backup, "p1", make_card("p1", "Zhao").card}}) {
    auto cards = a.store.read_cards(person, line1, proof_of(line1), where);
    ASSERT_TRUE(cards);
    bool found = false;
    for (const auto& c : *cards) {
      if (c.uid != uid)
        continue;
      found = true;
      EXPECT_GT(c.record.st.hlc, later_hlc) << uid;
      EXPECT_EQ(c.record.card, card) << uid;
    }
    EXPECT_TRUE(found) << uid;
  }
}

TEST_F(two_lines, a_book_larger_than_a_listpack_leaves_only_its_cards_in_each_hash) {
  // More fields than Redis keeps in a listpack: the hashes are made tables
  // first (hset_flat), which leaves nothing behind.
  std::vector<core::book_entry> book;
  std::set<std::string> uids;
  for (int i = 0; i < 200; ++i) {
    book.push_back(make_card("big" + std::to_string(i), "Name " + std::to_string(i)));
    uids.insert(book.back().uid);
  }
  EXPECT_EQ(upload(a.store, person, line1, book).added, 200u);
  auto fields_of = [&](const std::string& key) {
    std::set<std::string> out;
    for (const auto& [field, value] : hash_fields(a.client, key))
      out.insert(field);
    return out;
  };
  EXPECT_EQ(fields_of(store::keys::shared(person)), uids);
  EXPECT_EQ(fields_of(store::keys::base(person, line1)), uids);
  auto encoding = a.client.call({"OBJECT", "ENCODING", store::keys::base(person, line1)});
  ASSERT_TRUE(encoding);
  EXPECT_EQ(encoding->view().str(), "hashtable");
}

TEST_F(two_lines, upload_of_an_unknown_line_is_refused_and_changes_nothing) {
  store::upload_request req;
  req.idcode = person;
  req.line = "+8618600186000";
  req.token_hash = proof_of(req.line);
  req.cards = {make_card("u1", "Li")};
  auto r = a.store.upload(req);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::bad_token);
  EXPECT_TRUE(shared_records(a.client, person).empty());
}

TEST_F(two_lines, reads_with_another_token_are_refused) {
  upload(a.store, person, line1, {make_card("u1", "Li")});
  for (std::string proof : {proof_of(line2), std::string("x"), std::string()}) {
    auto cards = a.store.read_cards(person, line1, proof, store::scope::shared);
    ASSERT_FALSE(cards) << "proof '" << proof << "'";
    EXPECT_EQ(cards.error(), ec::bad_token);
    auto page = a.store.read_history(person, line1, proof, store::scope::shared, "", 10);
    ASSERT_FALSE(page) << "proof '" << proof << "'";
    EXPECT_EQ(page.error(), ec::bad_token);
  }
  // Another account's idcode with the line's own token opens nothing either.
  EXPECT_FALSE(
      a.store.read_cards(other_person, line1, proof_of(line1), store::scope::shared));
  EXPECT_EQ(
      a.store.read_cards(person, line1, proof_of(line1), store::scope::shared)->size(),
      1u);
}

TEST_F(two_lines, upload_with_another_token_is_refused_and_changes_nothing) {
  for (std::string proof : {proof_of(line2), std::string("x"), std::string()}) {
    store::upload_request req;
    req.idcode = person;
    req.line = line1;
    req.token_hash = proof;
    req.cards = {make_card("u1", "Li")};
    auto r = a.store.upload(req);
    ASSERT_FALSE(r) << "proof '" << proof << "'";
    EXPECT_EQ(r.error(), ec::bad_token);
  }
  EXPECT_TRUE(shared_records(a.client, person).empty());
  // The carrier's own access is no way in for an upload either: it is not
  // this line's token.
  store::upload_request req;
  req.idcode = person;
  req.line = line1;
  req.token_hash = std::string(store::operator_proof);
  req.cards = {make_card("u1", "Li")};
  EXPECT_FALSE(a.store.upload(req));
}

TEST_F(two_lines, a_line_of_another_account_cannot_be_written_through_this_one) {
  register_line(a.store, other_person, "+8618600186000");
  store::upload_request req;
  req.idcode = person; // the line belongs to other_person
  req.line = "+8618600186000";
  req.token_hash = proof_of(req.line); // that line's own token
  req.cards = {make_card("u1", "Li")};
  auto r = a.store.upload(req);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::bad_token);
}

TEST_F(two_lines, private_upload_stays_private_and_is_restorable) {
  auto r =
      upload(a.store, person, line1, {make_card("p1", "Doctor"), make_card("p2", "Bank")},
             store::upload_mode::snapshot, store::scope::private_backup);
  EXPECT_EQ(r.added, 2u);
  EXPECT_TRUE(shared_records(a.client, person).empty());
  EXPECT_TRUE(a.store.fetch_pending(person, line2, proof_of(line2))->changes.empty());
  EXPECT_TRUE(
      a.store.read_cards(person, line2, proof_of(line2), store::scope::private_backup)
          ->empty());
  auto restored =
      a.store.read_cards(person, line1, proof_of(line1), store::scope::private_backup);
  ASSERT_EQ(restored->size(), 2u);
  // A later snapshot replaces the backup.
  auto again = upload(a.store, person, line1, {make_card("p1", "Doctor")},
                      store::upload_mode::snapshot, store::scope::private_backup);
  EXPECT_EQ(again.removed, 1u);
  EXPECT_EQ(again.unchanged, 1u);
  EXPECT_EQ(
      a.store.read_cards(person, line1, proof_of(line1), store::scope::private_backup)
          ->size(),
      1u);
}

TEST_F(two_lines, a_thousand_card_upload_is_one_round_trip) {
  std::vector<core::book_entry> book;
  for (int i = 0; i < 1000; ++i)
    book.push_back(make_card("uid-" + std::to_string(i), "Name " + std::to_string(i)));
  auto before = a.client.round_trips();
  auto r = upload(a.store, person, line1, book);
  EXPECT_EQ(r.added, 1000u);
  // Three when the server did not hold the function library yet (FCALL, FUNCTION
  // LOAD, FCALL again).
  EXPECT_LE(a.client.round_trips() - before, 3u);
  before = a.client.round_trips();
  book[0] = make_card("uid-0", "Renamed");
  r = upload(a.store, person, line1, book);
  EXPECT_EQ(r.changed, 1u);
  EXPECT_EQ(a.client.round_trips() - before, 1u);
}
