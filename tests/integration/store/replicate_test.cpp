// F3 outbox and F4 replicate-in between two carriers, each with its own
// redis-server. The test carries outbox entries as the peer link would.
#include "core/record.hpp"
#include "store/dead_letters.hpp"
#include "store/history_entry.hpp"
#include "store/keys.hpp"
#include "store/netstrings.hpp"
#include "store/outbox.hpp"
#include "store/scripts.hpp"
#include "store/sealed_records.hpp"
#include "store/set_aside.hpp"
#include "tests/integration/store/store_fixture.hpp"

#include <set>
#include <string>
#include <vector>

using namespace simsync;
using namespace simsync::testing;

namespace {
/// A command's arguments, owned.
using command_t = std::vector<std::string>;
} // namespace

namespace {

const std::string line_a = "+8613800138000";
const std::string line_b = "+8618600186000";

struct two_carriers : ::testing::Test {
  void SetUp() override {
    // Each registration asks the other carrier whether it holds an account
    // for the person; each holds one, so each answers and records the other.
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
      auto dir = c->client.call({"SCARD", store::keys::siblings(person)});
      EXPECT_EQ(dir->view().integer(), 1);
    }
  }

  /// Carries every outbox entry from `from` to `to` in one call, as a peer
  /// link does with a window; returns what they did.
  store::replicate_result deliver(carrier_store& from, carrier_store& to,
                                  bool trim = true) {
    const auto& to_id = to.store.carrier();
    auto entries = unsealed_outbox(from, to_id, 1000);
    EXPECT_TRUE(entries);
    if (!entries || entries->empty())
      return {};
    auto r = to.store.apply_incoming(from.store.carrier(), *entries);
    EXPECT_TRUE(r) << describe(r.error());
    if (trim) {
      EXPECT_TRUE(store::trim_outbox(from.client, to_id, entries->back().id));
    }
    return r ? *r : store::replicate_result{};
  }

  /// The outbox entries waiting at `from` for `to`, taken out of the outbox.
  std::vector<store::outbox_entry> take_outbox(carrier_store& from, carrier_store& to) {
    auto entries = unsealed_outbox(from, to.store.carrier(), 1000);
    EXPECT_TRUE(entries);
    if (!entries || entries->empty())
      return {};
    EXPECT_TRUE(store::trim_outbox(from.client, to.store.carrier(), entries->back().id));
    return *entries;
  }

  /// A one-card upload at carrier-a (u1), taken out of its outbox as
  /// carrier-b's apply script takes it: the uid and its record, sealed with
  /// carrier-b's keys.
  std::pair<std::string, std::string> one_card_for_b() {
    upload(a.store, person, line_a, {make_card("u1", "Li")});
    auto good = take_outbox(a, b);
    EXPECT_EQ(good.size(), 1u);
    if (good.size() != 1)
      return {};
    auto items = store::sealed_items(*b.keys->current(), good.front().batch, person);
    EXPECT_TRUE(items && items->size() == 2);
    if (!items || items->size() != 2)
      return {};
    return {(*items)[0], (*items)[1]};
  }

  /// Whether `peer` is a sibling of the account at `c`.
  static bool is_sibling(carrier_store& c, const std::string& idcode,
                         const std::string& peer) {
    return c.client.call({"SISMEMBER", store::keys::siblings(idcode), peer})
               ->view()
               .integer() == 1;
  }

  carrier_store a{"carrier-a"};
  carrier_store b{"carrier-b"};
};

/// `count` cards with random 120-letter names, which deflate poorly: the
/// book stays large at rest, as a real one with photos and notes would.
std::vector<core::book_entry> incompressible_book(int count) {
  std::vector<core::book_entry> book;
  std::uint64_t state = 42;
  for (int i = 0; i < count; ++i) {
    std::string name;
    for (int c = 0; c < 120; ++c) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      name += static_cast<char>('a' + (state >> 59) % 26);
    }
    book.push_back(make_card("u" + std::to_string(i), name));
  }
  return book;
}

} // namespace

TEST_F(two_carriers, a_shared_upload_reaches_the_sibling_pending_mailbox) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 1u);
  auto r = deliver(a, b);
  EXPECT_EQ(r.applied, 2u);
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 0u);
  auto f = b.store.fetch_pending(person, line_b, proof_of(line_b));
  EXPECT_EQ(kinds(*f),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
  EXPECT_EQ(opened_records(a, person), opened_records(b, person));
}

TEST_F(two_carriers, the_sibling_mailbox_is_read_from_the_history_of_its_shared_store) {
  const auto card = make_card("u1", "Li");
  upload(a.store, person, line_a, {card});
  EXPECT_EQ(deliver(a, b).applied, 1u);
  // Nothing per card for the line: the history names the change.
  EXPECT_TRUE(pending_entries(b.client, person, line_b).empty());
  auto f = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(f);
  ASSERT_EQ(f->changes.size(), 1u);
  EXPECT_EQ(f->changes[0].uid, "u1");
  EXPECT_EQ(f->changes[0].record.card, card.card);
  EXPECT_EQ(f->changes[0].record.st.carrier, "carrier-a");
}

TEST_F(two_carriers, a_duplicate_delivery_changes_nothing) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b, false);
  auto f = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(b.store.ack_pending(person, line_b, proof_of(line_b), f->cursor,
                                  store::decision::apply));
  auto before = opened_records(b, person);
  auto again = deliver(a, b);
  EXPECT_EQ(again.applied, 0u);
  EXPECT_EQ(again.identical, 1u);
  EXPECT_EQ(opened_records(b, person), before);
  EXPECT_TRUE(b.store.fetch_pending(person, line_b, proof_of(line_b))->changes.empty());
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
  auto sa = opened_records(a, person);
  EXPECT_EQ(sa, opened_records(b, person));
  EXPECT_NE(sa["u1"].find("Li B"), std::string::npos); // the later stamp wins
  auto kinds_of = [](carrier_store& c, const std::string& line) {
    std::vector<std::string> out;
    auto page =
        c.store.read_history(person, line, proof_of(line), store::scope::shared, "", 10);
    EXPECT_TRUE(page);
    for (const auto& change : page->changes)
      out.push_back(change.kind + ":" + change.carrier);
    return out;
  };
  // Newest first. A's edit lost at B and is kept there; at A it was replaced.
  EXPECT_EQ(kinds_of(b, line_b),
            (std::vector<std::string>{"lost:carrier-a", "added:carrier-b"}));
  EXPECT_EQ(kinds_of(a, line_a),
            (std::vector<std::string>{"changed:carrier-b", "added:carrier-a"}));
  auto replaced = a.client.call({"XREVRANGE", "history:{" + person + "}", "+", "-"});
  auto previous =
      store::open_record(*a.keys->current(), replaced->view()[0][1][7].str(), person);
  ASSERT_TRUE(previous) << "the replaced version is kept sealed";
  EXPECT_NE(previous->find("Li A"), std::string::npos);
}

TEST_F(two_carriers, a_removal_never_takes_an_edit_its_line_had_not_seen) {
  // B's line holds v1; A's line edits it to v2 while B's line removes v1,
  // later by the clock. Whatever the order of arrival, v2 stays everywhere.
  upload(a.store, person, line_a, {make_card("u1", "v1")});
  deliver(a, b);
  auto f = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(b.store.ack_pending(person, line_b, proof_of(line_b), f->cursor,
                                  store::decision::apply));
  upload(a.store, person, line_a, {make_card("u1", "v2")}, store::upload_mode::snapshot,
         store::scope::shared, 1'700'000'001'000);
  auto removal =
      upload(b.store, person, line_b, {make_card("u0", "other")},
             store::upload_mode::snapshot, store::scope::shared, 1'700'000'009'000);
  EXPECT_EQ(removal.removed, 1u); // B had not seen v2 yet: v1 is removed there
  deliver(a, b);
  deliver(b, a);
  auto sa = opened_records(a, person);
  EXPECT_EQ(sa, opened_records(b, person));
  EXPECT_NE(sa["u1"].find("v2"), std::string::npos);
  EXPECT_FALSE(core::decode_record(sa["u1"])->deleted);
  // B's line is offered v2 back.
  EXPECT_EQ(kinds(*b.store.fetch_pending(person, line_b, proof_of(line_b)))["u1"],
            "added");
}

TEST_F(two_carriers, a_removal_travels_and_shows_as_removed) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  deliver(a, b);
  auto f = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(b.store.ack_pending(person, line_b, proof_of(line_b), f->cursor,
                                  store::decision::apply));
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b);
  EXPECT_EQ(kinds(*b.store.fetch_pending(person, line_b, proof_of(line_b))),
            (std::map<std::string, std::string>{{"u2", "removed"}}));
  EXPECT_EQ(
      b.store.read_cards(person, line_b, proof_of(line_b), store::scope::shared)->size(),
      1u);
}

TEST_F(two_carriers, a_new_sibling_is_bootstrapped_with_the_whole_store) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  carrier_store c("carrier-c");
  register_line(c.store, person, "+8615000150000", {"carrier-a", "carrier-b"});
  deliver(c, a);
  auto r = deliver(a, c);
  EXPECT_EQ(r.applied, 2u);
  EXPECT_TRUE(is_sibling(a, person, "carrier-c"));
  EXPECT_EQ(c.store.fetch_pending(person, "+8615000150000", proof_of("+8615000150000"))
                ->changes.size(),
            2u);
  // The answer's hold makes carrier-a known at carrier-c, which sends back
  // its own (empty) store: nothing more to apply.
  EXPECT_TRUE(is_sibling(c, person, "carrier-a"));
  EXPECT_EQ(deliver(c, a).applied, 0u);
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-c"), 0u);
}

TEST_F(two_carriers, a_large_book_travels_as_several_entries_and_arrives_whole) {
  const auto book = incompressible_book(8000);
  upload(a.store, person, line_a, book);
  // The peer applies each entry in a script of its own: no entry (as the
  // link reads it, its cards sealed) is much above half a megabyte, nor holds
  // more than 1,000 cards (each is a field of the entry: one XADD's
  // arguments, which Lua bounds).
  auto read = store::read_outbox(a.client, "carrier-b", "0-0", 1000);
  ASSERT_TRUE(read);
  ASSERT_GE(read->size(), 2u);
  std::size_t cards = 0;
  for (const auto& e : *read) {
    EXPECT_EQ(e.idcode, person);
    EXPECT_LE(e.batch.size(), 600'000u);
    auto items = store::split_netstrings(e.batch);
    ASSERT_TRUE(items);
    EXPECT_LE(items->size() / 2, 1000u);
    cards += items->size() / 2;
  }
  EXPECT_EQ(cards, book.size());
  auto r = deliver(a, b);
  EXPECT_EQ(r.applied, book.size());
  EXPECT_EQ(opened_records(a, person), opened_records(b, person));
  EXPECT_EQ(b.store.fetch_pending(person, line_b, proof_of(line_b))->changes.size(),
            book.size());
  // A new sibling's bootstrap is cut the same way.
  carrier_store c("carrier-c");
  register_line(c.store, person, "+8615000150000", {"carrier-a"});
  deliver(c, a);
  EXPECT_GE(*store::outbox_depth(a.client, "carrier-c"), 2u);
  EXPECT_EQ(deliver(a, c).applied, book.size());
  EXPECT_EQ(opened_records(a, person), opened_records(c, person));
}

TEST_F(two_carriers, a_malformed_batch_is_refused_and_changes_nothing) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  auto good = take_outbox(a, b);
  ASSERT_EQ(good.size(), 1u);
  for (std::string bad : {"5:u1", "2:u14:junk", "x:u1", "-3:abc"}) {
    // The well-formed entries around it are refused with it: nothing is applied.
    auto r =
        b.store.apply_incoming("carrier-a", {sibling_entry(other_person), good.front(),
                                             batch_entry(person, bad), good.front()});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error(), ec::invalid_request);
  }
  EXPECT_TRUE(opened_records(b, person).empty());
  EXPECT_FALSE(is_sibling(b, other_person, "carrier-a"));
}

// Records travel between carriers in the text form, whatever form the
// sender keeps; the sibling keeps them compact, and both hold the same book.
TEST_F(two_carriers,
       what_leaves_for_a_peer_is_the_text_form_and_the_sibling_keeps_it_compact) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  auto entries = take_outbox(a, b);
  ASSERT_FALSE(entries.empty());
  std::size_t sent = 0;
  for (const auto& e : entries) {
    auto items = store::split_netstrings(e.batch);
    ASSERT_TRUE(items);
    for (std::size_t i = 1; i < items->size(); i += 2, ++sent)
      EXPECT_EQ(core::form_of((*items)[i]), core::record_form::text);
  }
  EXPECT_EQ(sent, 2u);
  ASSERT_TRUE(b.store.apply_incoming("carrier-a", entries));
  EXPECT_EQ(opened_records(b, person), opened_records(a, person));
  // Each side writes the origin as its number, which its own table names.
  const auto number = core::origin_number("carrier-a", line_a);
  for (auto* c : {&a, &b}) {
    for (const auto& [uid, record] : shared_records(c->client, person)) {
      EXPECT_EQ(core::form_of(record), core::record_form::compact) << uid;
      EXPECT_EQ(core::record_origin_number(record), number) << uid;
    }
    EXPECT_EQ(origins_of(c->client, person),
              (core::origin_names{{number, "carrier-a|" + line_a}}));
  }
}

// Two origins may share a number: the account's table holds the first to
// claim it, and the records of any other are kept with their origin
// written out, read as they were, and sent on as the text form.
TEST_F(two_carriers, an_origin_whose_number_the_table_gives_another_is_written_out) {
  const auto number = core::origin_number("carrier-a", line_a);
  for (auto* c : {&a, &b})
    ASSERT_TRUE(
        c->admin.call({"HSET", store::keys::origins(person), number, "carrier-z|z"}));
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  for (const auto& [uid, record] : shared_records(a.client, person))
    EXPECT_EQ(core::record_origin(record), "carrier-a|" + line_a) << uid;
  auto cards = a.store.read_cards(person, line_a, proof_of(line_a), store::scope::shared);
  ASSERT_TRUE(cards);
  ASSERT_EQ(cards->size(), 2u);
  EXPECT_EQ(cards->front().record.st.line, line_a);

  deliver(a, b);
  for (const auto& [uid, record] : shared_records(b.client, person))
    EXPECT_EQ(core::record_origin(record), "carrier-a|" + line_a) << uid;
  EXPECT_EQ(opened_records(b, person), opened_records(a, person));
  auto f = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(f);
  ASSERT_EQ(f->changes.size(), 2u);
  EXPECT_EQ(f->changes.front().record.st.carrier, "carrier-a");
  EXPECT_EQ(f->changes.front().record.st.line, line_a);
  for (auto* c : {&a, &b})
    EXPECT_EQ(origins_of(c->client, person).at(number), "carrier-z|z")
        << "the table keeps it";
}

// A delivery's records are checked whole before any is applied: one record
// of a malformed form refuses the delivery, whatever the entries before it.
TEST_F(two_carriers, a_delivery_holding_a_malformed_record_is_refused_whole) {
  const auto card = one_card_for_b();
  const std::string &uid = card.first, &record = card.second;
  ASSERT_FALSE(record.empty());
  // A record's head in the text form, 0-based: stamp 0-15, '|', hash 17-48,
  // '|', kind 50, '|', then carrier '|' line '|'; in the compact form: kind
  // 0, stamp 1-8, hash 9-24, then carrier '|' line '|'. Each of these breaks
  // one part of it.
  const std::string text = text_form(record);
  auto changed = [](std::string out, std::size_t at, char to) {
    out[at] = to;
    return out;
  };
  const std::string short_hash = text.substr(0, 17) + text.substr(18);
  const std::string no_origin = text.substr(0, 52) + "carrier-a";
  const store::outbox_entry batch{"0-1", person, store::outbox_kind::batch, {}};
  for (const auto& bad : {std::string("junk"), changed(text, 3, 'a'),
                          changed(text, 17, 'g'), short_hash, changed(text, 50, 'X'),
                          no_origin, changed(record, 1, '\xff'), changed(record, 0, 'X'),
                          record.substr(0, 25) + "carrier-a", record.substr(0, 20)}) {
    auto r = b.store.apply_incoming(
        store::sealed_delivery{"carrier-a", {batch, batch}, {{uid, record}, {uid, bad}}});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error(), ec::invalid_request);
  }
  EXPECT_TRUE(opened_records(b, person).empty());
  // The same well-formed entry alone is applied: the refusals were the bad records'.
  ASSERT_TRUE(b.store.apply_incoming(
      store::sealed_delivery{"carrier-a", {batch}, {{uid, record}}}));
  EXPECT_EQ(opened_records(b, person).size(), 1u);
}

// The script checks its arguments' shape itself too: a batch's items follow
// their count, newest stamp, origin and claimed origin numbers, and an entry
// whose count, stamp, origin, claims, items or kind do not add up refuses
// the call whole, whatever the entries before it.
TEST_F(two_carriers, the_apply_script_refuses_malformed_entries_whole) {
  const auto card = one_card_for_b();
  const std::string &uid = card.first, &record = card.second;
  ASSERT_FALSE(record.empty());
  const std::string stamp = std::to_string(core::decode_record(record)->st.hlc);
  const std::vector<std::vector<std::string>> tails{
      {"batch", person, "3", stamp, "", "0", uid, record, uid}, // an odd count
      {"batch", person, "4", stamp, "", "0", uid, record},      // more items than follow
      {"batch", person, "x", stamp, "", "0", uid, record},      // not a count
      {"batch", person, "2", "soon", "", "0", uid, record}, // a stamp that is no number
      {"batch", person, "0"},                               // no newest stamp
      {"batch", person, "0", stamp},                        // no origin
      {"batch", person, "0", stamp, ""},                    // no count of claims
      {"batch", person, "2", stamp, "", "x", uid, record},  // claims counted by no number
      {"batch", person, "2", stamp, "", "1", "abcd", uid, record}, // a number, no origin
      {"batch", person, "2", stamp, "", "2", "abcd", uid,
       record},                                          // more claims than follow
      {"ask", person, "2", "0", "", "0", uid, record},   // an ask holds no items
      {"ask", person, "0", "0", "", "2", "abcd", "c|l"}, // nor claims
      {"sneak", person, "0", "0", "", "0"},              // no such kind
  };
  const std::vector<std::string_view> good{"carrier-a", "3600000", "10", "1700000000000",
                                           "batch",     person,    "2",  stamp,
                                           "",          "0",       uid,  record};
  for (const auto& tail : tails) {
    auto args = good;
    args.insert(args.end(), tail.begin(), tail.end());
    auto r = store::run_script(b.client, store::script::apply_incoming, args);
    ASSERT_FALSE(r) << tail[0] << " " << tail[2];
    EXPECT_EQ(r.error(), ec::invalid_request);
  }
  EXPECT_TRUE(opened_records(b, person).empty());
  ASSERT_TRUE(store::run_script(b.client, store::script::apply_incoming, good));
  EXPECT_EQ(opened_records(b, person).size(), 1u);
}

// A batch whose records are live versions from one line has its origin
// noted once for all (carrierd reads it as it checks them); any other batch
// has each record's own noted.
TEST_F(two_carriers,
       history_notes_each_record_origin_whether_its_batch_shares_one_or_not) {
  const std::string record = text_form(one_card_for_b().second);
  ASSERT_FALSE(record.empty());
  const auto body_at = core::record_body_at(record);
  const auto carrier_end = record.find('|', 52);
  auto from_line = [&](const std::string& line) {
    return record.substr(0, carrier_end + 1) + line + "|" + record.substr(body_at);
  };
  auto removal_from = [&](const std::string& line) {
    // A removal by `line` of the version that line-x wrote.
    auto removed = core::decode_record(from_line("line-x"));
    core::stamped_card tombstone{{removed->st.hlc + 1, "carrier-a", line},
                                 true,
                                 core::content_hash{},
                                 "",
                                 removed->st};
    return core::encode_record(tombstone);
  };
  const store::outbox_entry batch{"0-1", person, store::outbox_kind::batch, {}};
  ASSERT_TRUE(b.store.apply_incoming(store::sealed_delivery{
      "carrier-a",
      {batch, batch, batch},
      {{"s1", from_line("line-x"), "s2", from_line("line-x")},
       {"m1", from_line("line-x"), "m2", from_line("line-y")},
       {"t1", from_line("line-x"), "t1", removal_from("line-z")}}}));
  std::map<std::string, std::set<std::string>> noted; // uid -> kind@origin
  for (const auto& n : history_notes(b.client, person))
    noted[n.uid].insert(n.kind + "@" + n.origin);
  const std::string a = "carrier-a|";
  EXPECT_EQ(noted["s1"], (std::set<std::string>{"added@" + a + "line-x"}));
  EXPECT_EQ(noted["s2"], (std::set<std::string>{"added@" + a + "line-x"}));
  EXPECT_EQ(noted["m1"], (std::set<std::string>{"added@" + a + "line-x"}));
  EXPECT_EQ(noted["m2"], (std::set<std::string>{"added@" + a + "line-y"}));
  EXPECT_EQ(noted["t1"],
            (std::set<std::string>{"added@" + a + "line-x", "removed@" + a + "line-z"}));
}

TEST_F(two_carriers, history_keeps_the_order_of_a_batch_that_adds_and_changes_a_card) {
  // One line's live versions (the apply notes their additions in place): p
  // and q are added, q changed by a newer version of the same line, r added,
  // an older version of q lost, s added.
  const std::string record = one_card_for_b().second;
  ASSERT_FALSE(record.empty());
  auto version = [&](int hlc_step, const char* content) {
    auto v = core::decode_record(record);
    v->st.hlc += hlc_step;
    v->hash = core::content_hash::of(content);
    return core::encode_record(*v);
  };
  ASSERT_TRUE(core::decode_record(record));
  const store::outbox_entry batch{"0-1", person, store::outbox_kind::batch, {}};
  ASSERT_TRUE(b.store.apply_incoming(
      store::sealed_delivery{"carrier-a",
                             {batch},
                             {{"p", record, "q", record, "q", version(2, "newer"), "r",
                               record, "q", version(1, "older"), "s", record}}}));
  std::vector<std::string> noted; // kind:uid, in the stream's order
  for (const auto& n : history_notes(b.client, person))
    if (n.uid != "u1") // the card of one_card_for_b's upload, taken before
      noted.push_back(n.kind + ":" + n.uid);
  EXPECT_EQ(noted, (std::vector<std::string>{"added:p", "added:q", "changed:q", "added:r",
                                             "lost:q", "added:s"}));
}

TEST_F(two_carriers, a_large_batch_older_than_what_is_held_changes_nothing) {
  // Large enough that the apply reads the store in one go rather than card
  // by card: the older versions lose to what it holds.
  const std::string record = one_card_for_b().second;
  ASSERT_TRUE(core::decode_record(record));
  auto version = [&](int hlc_step, const char* content) {
    auto v = core::decode_record(record);
    v->st.hlc += hlc_step;
    v->hash = core::content_hash::of(content);
    return core::encode_record(*v);
  };
  auto batch_of = [&](const std::string& rec) {
    std::vector<std::string> items;
    for (int i = 0; i < 40; ++i) {
      items.push_back("big" + std::to_string(i));
      items.push_back(rec);
    }
    return items;
  };
  const store::outbox_entry batch{"0-1", person, store::outbox_kind::batch, {}};
  auto newer = b.store.apply_incoming(
      store::sealed_delivery{"carrier-a", {batch}, {batch_of(version(2, "newer"))}});
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->applied, 40u);
  const auto held = shared_records(b.client, person);
  auto older = b.store.apply_incoming(
      store::sealed_delivery{"carrier-a", {batch}, {batch_of(version(1, "older"))}});
  ASSERT_TRUE(older);
  EXPECT_EQ(older->applied, 0u);
  EXPECT_EQ(older->stale, 40u);
  EXPECT_EQ(shared_records(b.client, person), held);
}

TEST_F(two_carriers, the_sibling_clock_moves_past_the_newest_stamp_wherever_it_is) {
  const std::string record = text_form(one_card_for_b().second);
  ASSERT_FALSE(record.empty());
  // The same record under three stamps, the newest in the middle of the batch
  // (the uids are not the card's: only the clock is looked at here).
  auto stamped = [&record](std::uint64_t hlc) {
    auto digits = std::to_string(hlc);
    return std::string(16 - digits.size(), '0') + digits + record.substr(16);
  };
  const std::uint64_t newest = 1'800'000'000'000'000;
  const store::outbox_entry batch{"0-1", person, store::outbox_kind::batch, {}};
  ASSERT_TRUE(b.store.apply_incoming(
      store::sealed_delivery{"carrier-a",
                             {batch},
                             {{"x1", stamped(newest - 900), "x2", stamped(newest), "x3",
                               stamped(newest - 10)}}}));
  auto clock = b.client.call({"HGET", store::keys::account(person), "clock"});
  EXPECT_EQ(clock->view().str(), std::to_string(newest));
}

TEST_F(two_carriers,
       a_change_a_sibling_applies_after_a_fetch_stays_pending_after_its_ack) {
  // b's clock runs ahead of every stamp a sends (an upload at b stamped
  // later), so the applies below do not move it: each must still number its
  // offer apart from the one fetched, else the ack of that fetch would take
  // the newer change with it.
  upload(b.store, person, line_b, {make_card("b1", "Zhou")}, store::upload_mode::snapshot,
         store::scope::shared, 1'900'000'000'000);
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b);
  auto fetched = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(fetched) << describe(fetched.error());
  ASSERT_EQ(fetched->changes.size(), 1u);
  EXPECT_EQ(fetched->changes[0].uid, "u1");

  upload(a.store, person, line_a, {make_card("u1", "Li Lei")}, store::upload_mode::delta);
  deliver(a, b);
  ASSERT_TRUE(b.store.ack_pending(person, line_b, proof_of(line_b), fetched->cursor,
                                  store::decision::apply));
  auto next = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(next);
  ASSERT_EQ(next->changes.size(), 1u);
  EXPECT_EQ(next->changes[0].uid, "u1");
  EXPECT_EQ(next->changes[0].kind, store::change_kind::changed);
  EXPECT_NE(next->changes[0].record.card.find("Li Lei"), std::string::npos);
}

namespace {

/// The keys of `c`'s Redis whose name holds `text`.
std::vector<std::string> keys_naming(carrier_store& c, const std::string& text) {
  std::vector<std::string> out;
  auto all = c.admin.call({"KEYS", "*"}); // KEYS: the tests' user, not carrierd's
  for (std::size_t i = 0; i < all->view().size(); ++i)
    if (auto name = std::string(all->view()[i].str());
        name.find(text) != std::string::npos)
      out.push_back(name);
  return out;
}

} // namespace

TEST_F(two_carriers, an_ask_to_a_carrier_without_the_account_records_nothing) {
  carrier_store c("carrier-c");
  auto r = c.store.apply_incoming("carrier-a",
                                  {sibling_entry(person),
                                   sibling_entry(person, store::outbox_kind::hold),
                                   sibling_entry(person, store::outbox_kind::retire)});
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->asked, 1u);
  EXPECT_EQ(r->answered, 0u);
  EXPECT_EQ(r->siblings_added, 0u);
  // Nothing names the person here: a carrier where they hold no line keeps
  // no trace of their identification code in its keys.
  EXPECT_EQ(keys_naming(c, person), std::vector<std::string>{});
  // The hold (an answer to an ask this carrier no longer needs) gets a
  // retirement, so carrier-a stops sending here; the ask gets no answer.
  auto told = unsealed_outbox(c, "carrier-a", 10);
  ASSERT_EQ(told->size(), 1u);
  EXPECT_EQ((*told)[0].kind, store::outbox_kind::retire);
  // When the person registers at carrier-c later, it asks the others.
  register_line(c.store, person, "+8615000150000", {"carrier-a", "carrier-b"});
  told = unsealed_outbox(c, "carrier-a", 10);
  ASSERT_EQ(told->size(), 2u);
  EXPECT_EQ((*told)[1].kind, store::outbox_kind::ask);
}

TEST_F(two_carriers, an_ask_is_answered_with_the_whole_store_even_from_a_known_sibling) {
  // carrier-b's ask and carrier-a's crossed, or carrier-b registered again
  // after a retirement that carrier-a applied: carrier-b's account is new,
  // so it gets the whole store either way.
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  take_outbox(a, b);
  auto r = a.store.apply_incoming("carrier-b", {sibling_entry(person)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->answered, 1u);
  EXPECT_EQ(r->siblings_added, 0u);
  auto answer = take_outbox(a, b);
  ASSERT_EQ(answer.size(), 2u);
  EXPECT_EQ(answer[0].kind, store::outbox_kind::hold);
  EXPECT_EQ(answer[1].kind, store::outbox_kind::batch);
  EXPECT_NE(answer[1].batch.find("u1"), std::string::npos);
  // A hold from a known sibling is no news: nothing is sent again.
  r = a.store.apply_incoming("carrier-b",
                             {sibling_entry(person, store::outbox_kind::hold)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->siblings_added, 0u);
  EXPECT_TRUE(take_outbox(a, b).empty());
}

TEST_F(two_carriers, an_entry_written_as_an_announcement_is_read_as_an_ask) {
  // Outboxes written before asks existed hold "announce" entries.
  a.client.call({"XADD", "outbox:carrier-b", "*", "id", person, "kind", "announce"});
  auto read = unsealed_outbox(a, "carrier-b", 10);
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].kind, store::outbox_kind::ask);
}

TEST_F(two_carriers, an_entry_names_its_cards_and_the_link_reads_them_as_stored_now) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  const auto key = store::keys::outbox("carrier-b");
  auto stored = a.admin.call({"XRANGE", key, "-", "+"});
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->view().size(), 1u);
  // The entry holds uids, not records (and "" after an odd count).
  auto fields = stored->view()[0][1];
  ASSERT_EQ(fields.size(), 8u);
  EXPECT_EQ(fields[4].str(), "uids");
  EXPECT_EQ(fields[5].str(), "2");
  EXPECT_EQ(
      std::set<std::string>({std::string(fields[6].str()), std::string(fields[7].str())}),
      (std::set<std::string>{"u1", "u2"}));
  // A later change to u1 is what the link reads for the earlier entry too.
  upload(a.store, person, line_a, {make_card("u1", "Li Na")}, store::upload_mode::delta);
  auto now = a.admin.call({"HGET", store::keys::shared(person), "u1"});
  ASSERT_TRUE(now);
  // The link reads it with its origin written out: a peer is sent no number.
  const auto names = origins_of(a.client, person);
  std::string now_written_out;
  ASSERT_TRUE(
      core::append_record_written_out(now_written_out, now->view().str(), &names));
  EXPECT_NE(now_written_out, now->view().str());
  auto read = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->size(), 2u);
  auto first = store::split_netstrings((*read)[0].batch);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->size(), 4u);
  for (std::size_t i = 0; i < first->size(); i += 2) {
    if ((*first)[i] == "u1") {
      EXPECT_EQ((*first)[i + 1], now_written_out);
    }
  }
  EXPECT_EQ(deliver(a, b).applied, 2u);
  EXPECT_EQ(opened_records(a, person), opened_records(b, person));
}

TEST_F(two_carriers, a_named_card_no_longer_held_is_left_out_of_its_entry) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  ASSERT_TRUE(a.admin.call({"DEL", store::keys::shared(person)}));
  auto read = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].kind, store::outbox_kind::batch);
  EXPECT_EQ((*read)[0].batch, "");
}

TEST_F(two_carriers, cards_still_owed_to_a_peer_go_before_the_account_is_removed) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  ASSERT_TRUE(*a.store.remove_line(person, line_a, proof_of(line_a), {"carrier-b"}));
  auto read = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(read);
  // The upload's entry (its card went with the account), the book with its
  // records in it, the retirement.
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].batch, "");
  EXPECT_NE((*read)[1].batch, "");
  EXPECT_EQ((*read)[2].kind, store::outbox_kind::retire);
  auto stored = a.admin.call({"XRANGE", store::keys::outbox("carrier-b"), "-", "+"});
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->view()[1][1][4].str(), "cards");
  read->erase(read->begin()); // the link sends an entry with no card nowhere
  for (auto& e : *read)
    ASSERT_FALSE(store::unseal_entry(*a.keys->current(), e, "carrier-b"));
  auto r = b.store.apply_incoming("carrier-a", *read);
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->applied, 1u);
  EXPECT_EQ(opened_records(b, person).count("u1"), 1u);
}

TEST_F(two_carriers, a_peer_owed_nothing_is_told_only_of_the_removal) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b);
  ASSERT_TRUE(*a.store.remove_line(person, line_a, proof_of(line_a), {"carrier-b"}));
  auto read = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].kind, store::outbox_kind::retire);
}

TEST_F(two_carriers, entries_written_with_their_records_in_them_are_read_the_same) {
  // Outboxes written before entries named their cards hold the uid, record
  // pairs as fields after "cards" and their count; older ones the netstrings
  // of the pairs in one "batch" field.
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  const auto key = store::keys::outbox("carrier-b");
  auto as_named = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(as_named);
  ASSERT_EQ(as_named->size(), 1u);
  const auto sealed = (*as_named)[0].batch;
  auto items = store::split_netstrings(sealed);
  ASSERT_TRUE(items);
  std::vector<std::string> with_cards{"XADD", key,     "*",     "id", person,
                                      "kind", "batch", "cards", "2"};
  with_cards.insert(with_cards.end(), items->begin(), items->end());
  ASSERT_TRUE(a.admin.call({"DEL", key}));
  ASSERT_TRUE(
      a.admin.call(std::vector<std::string_view>(with_cards.begin(), with_cards.end())));
  ASSERT_TRUE(
      a.admin.call({"XADD", key, "*", "id", person, "kind", "batch", "batch", sealed}));
  auto as_before = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(as_before);
  ASSERT_EQ(as_before->size(), 2u);
  for (const auto& e : *as_before) {
    EXPECT_EQ(e.batch, sealed);
    EXPECT_EQ(e.kind, store::outbox_kind::batch);
  }
  EXPECT_EQ(deliver(a, b).applied, 2u);
  EXPECT_EQ(opened_records(a, person), opened_records(b, person));
}

TEST_F(two_carriers, an_entry_whose_count_of_cards_does_not_match_is_not_sent) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  const auto key = store::keys::outbox("carrier-b");
  auto read = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(read);
  auto items = store::split_netstrings(read->front().batch);
  ASSERT_TRUE(items && items->size() == 2);
  for (auto counted : std::vector<command_t>{
           {"XADD", key, "*", "id", person, "kind", "batch", "cards", "2",
            std::string((*items)[0]), std::string((*items)[1])},
           {"XADD", key, "*", "id", person, "kind", "batch", "uids", "3", "u1", "u2"},
           {"XADD", key, "*", "id", person, "kind", "batch", "uids", "1", "u1", "u2"}}) {
    ASSERT_TRUE(a.admin.call({"DEL", key}));
    ASSERT_TRUE(
        a.admin.call(std::vector<std::string_view>(counted.begin(), counted.end())));
    auto stored = a.admin.call({"XRANGE", key, "-", "+"});
    ASSERT_TRUE(stored);
    if (counted[7] == "cards") {
      EXPECT_FALSE(store::outbox_batch(stored->view()[0][1]));
    }
    auto unread = unsealed_outbox(a, "carrier-b", 10);
    ASSERT_FALSE(unread) << counted[7] << " " << counted[8];
    EXPECT_EQ(unread.error(), ec::store_corrupt);
  }
}

namespace {

/// Where a test alters a record: in the shared store, where the outbox
/// entries of this release read it, or in an entry that holds its records
/// itself (written by an earlier release, or before an account's removal).
enum class altered_in { shared_store, the_entry };

/// carrier-a's one outbox entry for carrier-b, with the record of `uid`
/// changed by `alter` where `where` says; the entry as read_outbox reads it.
store::outbox_entry with_record_altered(carrier_store& a, const std::string& uid,
                                        const std::function<void(std::string&)>& alter,
                                        altered_in where) {
  const auto key = store::keys::outbox("carrier-b");
  auto read = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  EXPECT_TRUE(read && read->size() == 1);
  auto items = store::split_netstrings(read->front().batch);
  EXPECT_TRUE(items);
  std::vector<std::string> entry{"XADD",  key,     "*",
                                 "id",    person,  "kind",
                                 "batch", "cards", std::to_string(items->size() / 2)};
  if (where == altered_in::shared_store) {
    // As the store keeps it: its origin as its number (the link reads it
    // written out).
    auto stored = a.admin.call({"HGET", store::keys::shared(person), uid});
    EXPECT_TRUE(stored);
    std::string record(stored->view().str());
    EXPECT_FALSE(core::record_origin_number(record).empty());
    alter(record);
    EXPECT_TRUE(a.admin.call({"HSET", store::keys::shared(person), uid, record}));
  }
  for (std::size_t i = 0; i + 1 < items->size(); i += 2) {
    std::string record((*items)[i + 1]);
    if ((*items)[i] == uid)
      alter(record);
    entry.emplace_back((*items)[i]);
    entry.push_back(record);
  }
  if (where == altered_in::the_entry) {
    EXPECT_TRUE(a.admin.call({"DEL", key}));
    std::vector<std::string_view> args(entry.begin(), entry.end());
    EXPECT_TRUE(a.admin.call(args));
  }
  read = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  EXPECT_TRUE(read && read->size() == 1);
  return read->front();
}

void flip_last_byte(std::string& record) {
  record.back() ^= 1;
}

} // namespace

TEST_F(two_carriers, an_altered_outbox_entry_is_set_aside_and_its_cards_sent_again) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  auto entry = with_record_altered(a, "u1", flip_last_byte, altered_in::the_entry);
  auto copy = entry;
  EXPECT_EQ(store::unseal_entry(*a.keys->current(), copy, "carrier-b"),
            ec::store_corrupt);
  auto altered = store::altered_records(*a.keys->current(), entry);
  ASSERT_TRUE(altered);
  EXPECT_EQ(std::count(altered->begin(), altered->end(), true), 1);

  auto done = store::set_aside_entry(a.client, "carrier-b", entry, *altered, "altered",
                                     1'700'000'000'000);
  ASSERT_TRUE(done) << describe(done.error());
  EXPECT_TRUE(done->found);
  EXPECT_EQ(done->resent, 2u); // u1 as the shared store holds it, and u2
  EXPECT_EQ(done->broken, 0u);
  auto aside = a.admin.call({"XRANGE", store::keys::set_aside("carrier-b"), "-", "+"});
  ASSERT_EQ(aside->view().size(), 1u);
  EXPECT_EQ(store::stream_field(aside->view()[0][1], "why"), "altered");
  EXPECT_EQ(store::stream_field(aside->view()[0][1], "id"), person);
  // Only once: the entry is no longer in the outbox.
  auto again = store::set_aside_entry(a.client, "carrier-b", entry, *altered, "altered",
                                      1'700'000'000'000);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->found);
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 1u);

  deliver(a, b);
  auto at_b = opened_records(b, person);
  EXPECT_EQ(at_b.size(), 2u);
  EXPECT_EQ(at_b, opened_records(a, person));
}

TEST_F(two_carriers, a_card_altered_in_the_shared_store_is_set_aside_and_not_sent_again) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  auto entry = with_record_altered(a, "u1", flip_last_byte, altered_in::shared_store);
  auto altered = store::altered_records(*a.keys->current(), entry);
  ASSERT_TRUE(altered);
  auto done = store::set_aside_entry(a.client, "carrier-b", entry, *altered, "altered",
                                     1'700'000'000'000);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->resent, 1u);
  EXPECT_EQ(done->broken, 1u);
  // What was sent again opens: nothing more is set aside, and u2 arrives.
  auto next = store::read_outbox(a.client, "carrier-b", "0-0", 10);
  ASSERT_TRUE(next && next->size() == 1);
  EXPECT_FALSE(store::altered_records(*a.keys->current(), next->front()));
  deliver(a, b);
  auto at_b = opened_records(b, person);
  EXPECT_EQ(at_b.size(), 1u);
  EXPECT_EQ(at_b.count("u2"), 1u);
}

TEST_F(two_carriers, only_an_entry_sealed_with_a_key_the_ring_lacks_is_not_set_aside) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  auto entry = with_record_altered(
      a, "u1",
      [](std::string& record) {
        auto body = core::record_body_at(record);
        record[body + 1] = '\x7f'; // a key id the ring does not hold
        record[body + 2] = '\x7f';
      },
      altered_in::shared_store);
  auto copy = entry;
  EXPECT_EQ(store::unseal_entry(*a.keys->current(), copy, "carrier-b"),
            ec::store_corrupt);
  EXPECT_FALSE(store::altered_records(*a.keys->current(), entry));
  // A card that is no longer a sealed value at all is damaged for good.
  auto unsealed = with_record_altered(
      a, "u1", [](std::string& record) { record[core::record_body_at(record)] = 'x'; },
      altered_in::shared_store);
  auto flags = store::altered_records(*a.keys->current(), unsealed);
  ASSERT_TRUE(flags);
  EXPECT_EQ(*flags, std::vector<bool>{true});
  // And an entry that opens is not one to set aside either.
  upload(b.store, person, line_b, {make_card("u9", "Zhao")});
  auto fine = store::read_outbox(b.client, "carrier-a", "0-0", 10);
  ASSERT_TRUE(fine && !fine->empty());
  EXPECT_FALSE(store::altered_records(*b.keys->current(), fine->back()));
}

TEST_F(two_carriers, an_account_removed_takes_what_the_operator_streams_keep_about_it) {
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  auto entry = with_record_altered(a, "u1", flip_last_byte, altered_in::the_entry);
  auto altered = store::altered_records(*a.keys->current(), entry);
  ASSERT_TRUE(altered);
  ASSERT_TRUE(store::set_aside_entry(a.client, "carrier-b", entry, *altered, "altered",
                                     1'700'000'000'000));
  // More dead letters than one page of the sweep, the two accounts' mixed.
  std::vector<store::dead_letter> letters;
  for (int i = 0; i < 450; ++i)
    letters.push_back({{"1-" + std::to_string(i), i % 3 == 0 ? other_person : person,
                        store::outbox_kind::batch, "garbage"},
                       "refused"});
  ASSERT_TRUE(store::keep_dead_letters(a.client, *a.keys->current(), "carrier-b", letters,
                                       1'700'000'000'000));
  auto dead = store::keys::dead_letters("carrier-b");
  auto aside = store::keys::set_aside("carrier-b");
  ASSERT_EQ(stream_entries_with(a.admin, dead, "idcode", person), 300u);
  ASSERT_EQ(stream_entries_with(a.admin, aside, "id", person), 1u);

  // A line that goes while the account stays takes nothing of them.
  const std::string second = "+8613900139000";
  register_line(a.store, person, second, {"carrier-b"});
  ASSERT_FALSE(*a.store.remove_line(person, second, proof_of(second), {"carrier-b"}));
  EXPECT_EQ(stream_entries_with(a.admin, dead, "idcode", person), 300u);
  EXPECT_EQ(stream_entries_with(a.admin, aside, "id", person), 1u);

  ASSERT_TRUE(*a.store.remove_line(person, line_a, proof_of(line_a), {"carrier-b"}));
  EXPECT_EQ(stream_entries_with(a.admin, dead, "idcode", person), 0u);
  EXPECT_EQ(stream_entries_with(a.admin, aside, "id", person), 0u);
  EXPECT_EQ(stream_entries_with(a.admin, dead, "idcode", other_person),
            150u); // another's stay
}

TEST_F(two_carriers, a_retired_sibling_gets_nothing_more_until_it_registers_again) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  deliver(a, b);
  ASSERT_TRUE(*b.store.remove_line(person, line_b, proof_of(line_b),
                                   {"carrier-a"})); // B's only line: the account goes
  deliver(b, a);                                    // the retirement
  upload(a.store, person, line_a, {make_card("u1", "Li"), make_card("u2", "Wang")});
  EXPECT_EQ(*store::outbox_depth(a.client, "carrier-b"), 0u);
  // The person registers at B again: B asks, A answers with the whole store.
  register_line(b.store, person, line_b, {"carrier-a"});
  deliver(b, a);
  deliver(a, b);
  EXPECT_EQ(kinds(*b.store.fetch_pending(person, line_b, proof_of(line_b))),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
}

TEST_F(two_carriers, a_batch_for_an_account_this_carrier_lacks_is_dropped) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  auto entries = unsealed_outbox(a, "carrier-b", 10);
  auto r = b.store.apply_incoming("carrier-a",
                                  {batch_entry(other_person, entries->front().batch)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->applied, 0u);
  EXPECT_TRUE(opened_records(b, other_person).empty());
}

TEST_F(two_carriers,
       a_batch_from_a_peer_that_is_not_a_sibling_of_the_account_is_refused) {
  upload(a.store, person, line_a, {make_card("u1", "Li")});
  auto entries = take_outbox(a, b);
  ASSERT_EQ(entries.size(), 1u);
  // carrier-c is a peer of carrier-b, signed and checked like any other, but
  // holds no line of this person: it may not write to the person's account.
  auto r = b.store.apply_incoming("carrier-c", entries);
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->applied, 0u);
  EXPECT_EQ(r->not_sibling, 1u);
  EXPECT_TRUE(opened_records(b, person).empty());
  EXPECT_TRUE(b.store.fetch_pending(person, line_b, proof_of(line_b))->changes.empty());
  EXPECT_FALSE(is_sibling(b, person, "carrier-c"));
  // The same entry from the sibling that wrote it is applied.
  r = b.store.apply_incoming("carrier-a", entries);
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->applied, 1u);
  EXPECT_EQ(r->not_sibling, 0u);
}

TEST_F(two_carriers, the_outbox_survives_a_redis_crash_with_aof) {
  carrier_store durable("carrier-a", redis_server::options{true});
  register_line(durable.store, person, line_a, {"carrier-b"});
  ASSERT_TRUE(durable.store.apply_incoming("carrier-b", {sibling_entry(person)}));
  upload(durable.store, person, line_a, {make_card("u1", "Li")});
  durable.server.restart(/*crash=*/true);
  auto client = durable.server.connect();
  // The ask, the answer to carrier-b's, and the upload's batch.
  EXPECT_EQ(*store::outbox_depth(client, "carrier-b"), 3u);
  EXPECT_EQ(shared_records(client, person).size(), 1u);
}

// -- many entries in one call (a peer link's window for one shard) ------------

TEST_F(two_carriers, one_call_applies_several_accounts_each_in_stream_order) {
  const std::string other_a = "+8613900139000";
  const std::string other_b = "+8618900189000";
  register_line(a.store, other_person, other_a, {"carrier-b"});
  register_line(b.store, other_person, other_b, {"carrier-a"});
  for (int i = 0; i < 2; ++i) {
    deliver(a, b);
    deliver(b, a);
  }
  ASSERT_TRUE(is_sibling(a, other_person, "carrier-b"));
  const std::uint64_t t = 1'700'000'000'000;
  upload(a.store, person, line_a, {make_card("u1", "Li old")},
         store::upload_mode::snapshot, store::scope::shared, t);
  upload(a.store, other_person, other_a, {make_card("v1", "Wang")},
         store::upload_mode::snapshot, store::scope::shared, t);
  // Read before the next upload: an entry names its cards, and the link
  // reads them as the store holds them when it reads the entry.
  auto window = take_outbox(a, b); // person old, other_person
  upload(a.store, person, line_a, {make_card("u1", "Li new"), make_card("u2", "Zhao")},
         store::upload_mode::snapshot, store::scope::shared, t + 1000);
  auto later = take_outbox(a, b); // person new
  window.insert(window.end(), later.begin(), later.end());
  ASSERT_EQ(window.size(), 3u);

  auto r = b.store.apply_incoming("carrier-a", window);
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->applied, 4u); // u1 (old, then new), v1, u2
  EXPECT_EQ(r->stale, 0u);
  EXPECT_EQ(opened_records(b, person), opened_records(a, person));
  EXPECT_EQ(opened_records(b, other_person), opened_records(a, other_person));
  EXPECT_NE(opened_records(b, person)["u1"].find("Li new"), std::string::npos);
  EXPECT_EQ(kinds(*b.store.fetch_pending(person, line_b, proof_of(line_b))),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
  EXPECT_EQ(kinds(*b.store.fetch_pending(other_person, other_b, proof_of(other_b))),
            (std::map<std::string, std::string>{{"v1", "added"}}));
}

TEST_F(two_carriers, a_stale_batch_after_a_newer_one_in_the_same_call_is_not_applied) {
  const std::uint64_t t = 1'700'000'000'000;
  upload(a.store, person, line_a, {make_card("u1", "Li old")},
         store::upload_mode::snapshot, store::scope::shared, t);
  auto window = take_outbox(a, b); // read before the next upload, as above
  upload(a.store, person, line_a, {make_card("u1", "Li new")},
         store::upload_mode::snapshot, store::scope::shared, t + 1000);
  auto later = take_outbox(a, b);
  window.insert(window.end(), later.begin(), later.end());
  ASSERT_EQ(window.size(), 2u);
  // Delivered newest first (as after a resend): the older one loses.
  auto r = b.store.apply_incoming("carrier-a", {window[1], window[0]});
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->applied, 1u);
  EXPECT_EQ(r->stale, 1u);
  EXPECT_EQ(opened_records(b, person), opened_records(a, person));
  EXPECT_NE(opened_records(b, person)["u1"].find("Li new"), std::string::npos);
  auto f = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_EQ(f->changes.size(), 1u);
  EXPECT_NE(f->changes[0].record.card.find("Li new"), std::string::npos);
  // The whole window again (the link resends it after a lost ack): no change.
  auto again = b.store.apply_incoming("carrier-a", window);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->applied, 0u);
  EXPECT_EQ(opened_records(b, person), opened_records(a, person));
}

TEST_F(two_carriers, asks_and_retirements_in_one_call_keep_their_order) {
  upload(b.store, person, line_b, {make_card("u1", "Li")});
  take_outbox(b, a);
  register_line(b.store, other_person, "+8618900189000");
  // carrier-c registers the person (a new account there): its ask, then its
  // first batch; and other_person comes and goes, then comes back.
  carrier_store c("carrier-c");
  register_line(c.store, person, "+8615000150000", {"carrier-b"});
  register_line(c.store, other_person, "+8615000150001", {"carrier-b"});
  auto asked = take_outbox(c, b);
  ASSERT_EQ(asked.size(), 2u);
  ASSERT_TRUE(c.store.apply_incoming("carrier-b", {sibling_entry(person)}));
  take_outbox(c, b);
  upload(c.store, person, "+8615000150000", {make_card("u9", "From C")});
  auto batch = take_outbox(c, b);
  ASSERT_EQ(batch.size(), 1u);
  take_outbox(b, c); // what carrier-b said to carrier-c so far: not looked at

  auto r = b.store.apply_incoming(
      "carrier-c", {asked[0], batch[0], asked[1],
                    sibling_entry(other_person, store::outbox_kind::retire), asked[1]});
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_EQ(r->applied, 1u);
  EXPECT_EQ(r->asked, 3u);
  EXPECT_EQ(r->answered, 3u);
  EXPECT_EQ(r->siblings_added, 3u); // person, other_person twice
  EXPECT_EQ(r->siblings_removed, 1u);
  EXPECT_TRUE(is_sibling(b, person, "carrier-c"));
  EXPECT_TRUE(is_sibling(b, other_person, "carrier-c"));
  // carrier-c was bootstrapped with the store as it was at its ask, before
  // its own batch: just u1.
  auto answer = take_outbox(b, c);
  ASSERT_GE(answer.size(), 2u);
  EXPECT_EQ(answer[0].kind, store::outbox_kind::hold);
  EXPECT_EQ(answer[0].idcode, person);
  EXPECT_EQ(answer[1].kind, store::outbox_kind::batch);
  EXPECT_NE(answer[1].batch.find("u1"), std::string::npos);
  EXPECT_EQ(answer[1].batch.find("u9"), std::string::npos);
  // A retirement after the last ask would have left it out.
  auto gone = b.store.apply_incoming(
      "carrier-c", {sibling_entry(other_person),
                    sibling_entry(other_person, store::outbox_kind::retire)});
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->siblings_removed, 1u);
  EXPECT_FALSE(is_sibling(b, other_person, "carrier-c"));
}
