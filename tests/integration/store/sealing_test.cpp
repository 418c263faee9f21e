// Cards at rest: every copy the store keeps (shared store, history, private
// backup, outbox) is sealed with the carrier's own keys, bound to the
// account; what leaves for a peer is unsealed first (its cards still
// compressed) and the peer seals it with its keys. Read through the store,
// nothing changes for its callers.
#include "core/card_compression.hpp"
#include "core/record.hpp"
#include "store/netstrings.hpp"
#include "store/outbox.hpp"
#include "tests/integration/store/store_fixture.hpp"
#include "tests/support/at_rest_scan.hpp"

#include <chrono>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";
const std::string line_b = "+8618600186000";

/// Where `c`'s Redis holds card text in the clear (none: every card sealed).
std::vector<finding> clear_cards(carrier_store& c) {
  return scan_keyspace(c.admin, c.store.carrier(),
                       {{"card text", "Zqx"}, {"card", "BEGIN:VCARD"}});
}

struct sealing : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line_a, {"carrier-b"});
    register_line(b.store, person, line_b, {"carrier-a"});
    deliver(a, b);
    deliver(b, a);
    deliver(a, b);
  }

  std::size_t deliver(carrier_store& from, carrier_store& to) {
    auto entries = unsealed_outbox(from, to.store.carrier(), 100);
    EXPECT_TRUE(entries) << describe(entries.error());
    if (!entries || entries->empty())
      return 0;
    EXPECT_TRUE(to.store.apply_incoming(from.store.carrier(), *entries));
    EXPECT_TRUE(store::trim_outbox(from.client, to.store.carrier(), entries->back().id));
    return entries->size();
  }

  carrier_store a{"carrier-a"};
  carrier_store b{"carrier-b"};
};

} // namespace

TEST_F(sealing, no_card_text_is_stored_in_the_clear_anywhere) {
  upload(a.store, person, line_a, {make_card("u1", "Ada Zqxlovelace")});
  upload(a.store, person, line_a, {make_card("u1", "Ada Zqxbyron")});
  upload(a.store, person, line_a, {make_card("p1", "Zqxprivate Friend")},
         store::upload_mode::snapshot, store::scope::private_backup);
  // Before delivery the outbox holds the batches; after it, carrier-b holds
  // the cards, history and mailbox.
  for (const auto& found : clear_cards(a))
    ADD_FAILURE() << "waiting for carrier-b: " << found;
  deliver(a, b);
  for (auto* c : {&a, &b})
    for (const auto& found : clear_cards(*c))
      ADD_FAILURE() << found;
}

TEST_F(sealing, read_through_the_store_every_card_is_clear) {
  upload(a.store, person, line_a, {make_card("u1", "Ada")});
  upload(a.store, person, line_a, {make_card("p1", "Private")},
         store::upload_mode::snapshot, store::scope::private_backup);
  deliver(a, b);
  auto pending = b.store.fetch_pending(person, line_b, proof_of(line_b));
  ASSERT_TRUE(pending) << describe(pending.error());
  ASSERT_EQ(pending->changes.size(), 1u);
  EXPECT_EQ(pending->changes[0].record.card, make_card("u1", "Ada").card);
  auto priv =
      a.store.read_cards(person, line_a, proof_of(line_a), store::scope::private_backup);
  ASSERT_TRUE(priv);
  ASSERT_EQ(priv->size(), 1u);
  EXPECT_EQ((*priv)[0].record.card, make_card("p1", "Private").card);
  // Both carriers agree on every record's head and content; only the sealed
  // bytes differ, each carrier having used its own key.
  EXPECT_EQ(opened_records(a, person), opened_records(b, person));
  EXPECT_NE(shared_records(a.client, person), shared_records(b.client, person));
}

TEST_F(sealing, each_carrier_keeps_the_card_compressed_inside_its_seal) {
  const auto entry = make_card("u1", "Ada Lovelace");
  upload(a.store, person, line_a, {entry});
  deliver(a, b);
  for (auto* c : {&a, &b}) {
    auto records = shared_records(c->client, person);
    ASSERT_EQ(records.size(), 1u) << c->store.carrier();
    const auto& stored = records.at("u1");
    auto inside =
        c->keys->current()->open(stored.substr(core::record_body_at(stored)), person);
    ASSERT_TRUE(inside) << c->store.carrier();
    EXPECT_EQ(inside->front(), core::compressed_card_mark) << c->store.carrier();
    EXPECT_LT(inside->size(), entry.card.size()) << c->store.carrier();
    EXPECT_EQ(core::expand_card(*inside), entry.card) << c->store.carrier();
  }
}

TEST_F(sealing, what_leaves_for_a_peer_is_unsealed_but_still_compressed) {
  upload(a.store, person, line_a, {make_card("u1", "Ada")});
  auto entries = unsealed_outbox(a, "carrier-b", 10);
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 1u);
  // TLS protects it on the wire; the peer cannot open this carrier's seal.
  auto items = store::split_netstrings(entries->front().batch);
  ASSERT_TRUE(items);
  ASSERT_EQ(items->size(), 2u);
  auto record = core::decode_record((*items)[1]);
  ASSERT_TRUE(record) << "the record is not sealed";
  EXPECT_TRUE(core::is_compressed_card(record->card));
  EXPECT_EQ(core::expand_card(record->card), make_card("u1", "Ada").card);
}

TEST_F(sealing, a_restore_moves_sealed_versions_without_opening_them) {
  upload(a.store, person, line_a, {make_card("u1", "First")},
         store::upload_mode::snapshot, store::scope::shared, 1'700'000'000'000);
  // History entries are stamped with Redis' clock: the second in a later millisecond.
  std::this_thread::sleep_for(std::chrono::milliseconds{5});
  upload(a.store, person, line_a, {make_card("u1", "Second")},
         store::upload_mode::snapshot, store::scope::shared, 1'700'000'100'000);
  store::restore_request req;
  req.idcode = person;
  req.line = line_a;
  req.token_hash = proof_of(line_a);
  req.scope = store::scope::shared;
  req.preview = false;
  req.at_ms = store::stream_id_ms(
      std::string(a.client.call({"XRANGE", "history:{" + person + "}", "-", "+"})
                      ->view()[0][0]
                      .str()));
  req.now_ms = 1'700'000'200'000;
  ASSERT_TRUE(a.store.restore(req));
  auto cards = a.store.read_cards(person, line_a, proof_of(line_a), store::scope::shared);
  ASSERT_TRUE(cards);
  ASSERT_EQ(cards->size(), 1u);
  EXPECT_EQ((*cards)[0].record.card, make_card("u1", "First").card);
}

TEST_F(sealing, a_card_sealed_with_a_key_the_ring_lacks_is_refused_with_the_reason) {
  upload(a.store, person, line_a, {make_card("u1", "Ada")});
  // The node lost its keyring file's key 1 (an operator's slip): reads say why.
  a.keys->replace(core::keyring({{2, std::string(32, 'x')}}, 2, std::string(32, 'l')));
  auto cards = a.store.read_cards(person, line_a, proof_of(line_a), store::scope::shared);
  ASSERT_FALSE(cards);
  EXPECT_EQ(cards.error(), ec::store_corrupt);
  EXPECT_NE(describe(cards.error()).find("sealed with key 1"), std::string::npos)
      << describe(cards.error());
}
