// Key rotation in a real Redis: after the writer key changes, re-seal passes
// leave nothing sealed with the old key (outbox entries name their cards,
// which the shared store holds; only entries holding records themselves keep
// the old key until they are sent), and everything still reads once the old
// key is dropped.
#include "store/reseal.hpp"
#include "store/scripts.hpp"
#include "tests/integration/store/store_fixture.hpp"

#include <chrono>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";
const std::string line_2 = "+8613800138002";

struct reseal : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line_a, {"carrier-b"});
    register_line(a.store, person, line_2);
    // carrier-b holds an account too: what changes here goes to its outbox.
    ASSERT_TRUE(a.store.apply_incoming(
        "carrier-b", {sibling_entry(person, store::outbox_kind::hold)}));
    upload(a.store, person, line_a, {make_card("u1", "Ada"), make_card("u2", "Bo")});
    std::this_thread::sleep_for(std::chrono::milliseconds{2});
    upload(a.store, person, line_a, {make_card("u1", "Ada Byron")},
           store::upload_mode::delta); // history keeps "Ada"
    upload(a.store, person, line_a, {make_card("p1", "Private")},
           store::upload_mode::snapshot, store::scope::private_backup);
    old_ring = *a.keys->current();
  }

  /// Key 2 joins the ring and seals from now on; key 1 still opens.
  void rotate() {
    new_key = std::string(32, 'n');
    a.keys->replace(core::keyring({{1, old_ring.seal_keys().at(1)}, {2, new_key}}, 2,
                                  old_ring.lookup_key()));
  }

  /// Runs a whole pass; returns its summed steps.
  store::reseal_step pass() {
    store::reseal_step total;
    std::string cursor = "0";
    do {
      auto step = store::reseal_step_at(a.client, *a.keys->current(), cursor);
      EXPECT_TRUE(step) << describe(step.error());
      if (!step)
        break;
      total.scanned += step->scanned;
      total.resealed += step->resealed;
      total.changed += step->changed;
      for (auto [id, n] : step->left)
        total.left[id] += n;
      cursor = step->cursor;
    } while (cursor != "0");
    return total;
  }

  carrier_store a{"carrier-a"};
  core::keyring old_ring;
  std::string new_key;
};

} // namespace

TEST_F(reseal, a_pass_seals_everything_again_with_the_writer_key) {
  rotate();
  auto first = pass();
  EXPECT_GT(first.scanned, 0u);
  // u1, u2 and p1, and the history's replaced "Ada".
  EXPECT_GE(first.resealed, 4u);
  EXPECT_EQ(first.changed, 0u);
  // The outbox for carrier-b names the uploads' cards, which the pass sealed
  // again where they are (the shared store): nothing there keeps key 1.
  EXPECT_TRUE(first.left.empty());
  auto second = pass();
  EXPECT_EQ(second.resealed, 0u) << "a second pass finds nothing more to do";

  // Key 1 can go: the outbox and everything else read with key 2 alone.
  a.keys->replace(core::keyring({{2, new_key}}, 2, old_ring.lookup_key()));
  auto entries = unsealed_outbox(a, "carrier-b", 100);
  ASSERT_TRUE(entries) << describe(entries.error());
  EXPECT_FALSE(entries->empty());
  auto shared =
      a.store.read_cards(person, line_a, proof_of(line_a), store::scope::shared);
  ASSERT_TRUE(shared) << describe(shared.error());
  EXPECT_EQ(shared->size(), 2u);
  auto priv =
      a.store.read_cards(person, line_a, proof_of(line_a), store::scope::private_backup);
  ASSERT_TRUE(priv) << describe(priv.error());
  EXPECT_EQ(priv->size(), 1u);
  auto pending = a.store.fetch_pending(person, line_2, proof_of(line_2));
  ASSERT_TRUE(pending) << describe(pending.error());
  EXPECT_EQ(pending->changes.size(), 2u);
  // The history's replaced version opens with key 2 alone.
  auto history = a.client.call({"XRANGE", "history:{" + person + "}", "-", "+"});
  std::string previous_versions;
  for (std::size_t i = 0; i < history->view().size(); ++i) {
    auto previous = store::stream_field(history->view()[i][1], "p");
    if (previous.empty())
      continue;
    auto opened = store::open_record(*a.keys->current(), previous, person);
    ASSERT_TRUE(opened);
    previous_versions += *opened;
  }
  EXPECT_NE(previous_versions.find("FN:Ada\r\n"), std::string::npos);
}

TEST_F(reseal, a_rewritten_history_keeps_its_entry_ids_for_restore_points) {
  auto ids_of = [&] {
    std::vector<std::string> ids;
    auto r = a.client.call({"XRANGE", "history:{" + person + "}", "-", "+"});
    for (std::size_t i = 0; i < r->view().size(); ++i)
      ids.emplace_back(r->view()[i][0].str());
    return ids;
  };
  auto before = ids_of();
  rotate();
  pass();
  EXPECT_EQ(ids_of(), before);
  // New entries still get later ids than any the stream ever had.
  upload(a.store, person, line_a, {make_card("u3", "Cy")});
  auto after = ids_of();
  EXPECT_GT(store::stream_id_ms(after.back()), 0u);
  EXPECT_NE(after.back(), before.back());
}

TEST_F(reseal, a_rewritten_history_still_reaches_back_no_further_than_it_did) {
  // A store that keeps two entries: three more changes drop the older ones.
  store::account_store small{a.client, "carrier-a", a.keys,
                             store::history_policy{3'600'000, 2}};
  for (const char* name : {"Bo 1", "Bo 2", "Bo 3"})
    upload(small, person, line_a, {make_card("u2", name)}, store::upload_mode::delta);
  store::restore_request long_ago{
      person, line_a, proof_of(line_a),   store::scope::shared,
      1,      true,   core::unix_now_ms()};
  auto refused = small.restore(long_ago);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), ec::beyond_history);

  rotate();
  auto rewritten = pass();
  EXPECT_GT(rewritten.resealed, 0u);
  refused = small.restore(long_ago);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), ec::beyond_history);
}

TEST_F(reseal, a_value_changed_since_it_was_read_is_not_overwritten) {
  auto key = "shared:{" + person + "}";
  auto r = store::run_script(a.client, store::script::reseal_hash,
                             {key, "u1", "not what it holds", "replacement"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->view()[0].integer(), 0);
  EXPECT_NE(hash_fields(a.client, key)["u1"], "replacement");
}

TEST_F(reseal,
       a_registration_sealed_under_the_older_writer_lands_sealed_with_the_writer) {
  // The gateway sealed the number, and read the user info from the subscriber
  // record, before the writer changed; the store writes them after.
  const std::string line_3 = "+8613800138003", info = R"({"name":"Ada"})";
  store::register_request req{other_person,
                              line_3,
                              "iccid-hash",
                              proof_of(line_3),
                              old_ring.seal(info, other_person),
                              core::unix_now_ms(),
                              {},
                              old_ring.seal(line_3, other_person)};
  rotate();
  auto registered = a.store.register_line(req);
  ASSERT_TRUE(registered) << describe(registered.error());
  ASSERT_TRUE(registered->account_created);

  auto user_info = hash_fields(a.admin, store::keys::account(other_person))["user_info"];
  auto msisdn = hash_fields(a.admin, store::keys::line(other_person, line_3))["msisdn"];
  EXPECT_EQ(core::keyring::key_of(user_info), 2);
  EXPECT_EQ(core::keyring::key_of(msisdn), 2);
  EXPECT_EQ(a.keys->current()->open(user_info, other_person), info);
  EXPECT_EQ(a.keys->current()->open(msisdn, other_person), line_3);
}

TEST_F(reseal, a_subscriber_sealed_under_the_older_writer_lands_sealed_with_the_writer) {
  const std::string info = R"({"name":"Bo","id_number":"110101199003074578"})";
  store::subscriber_record record{"line-of-bo", "iccid-of-bo", other_person,
                                  old_ring.seal(info, other_person), true};
  rotate();
  auto put = a.store.put_subscribers({record}, core::unix_now_ms());
  ASSERT_TRUE(put) << describe(put.error());
  ASSERT_EQ(put->size(), 1u);
  EXPECT_EQ(put->front().change, store::subscriber_change::created);

  auto user_info =
      hash_fields(a.admin, store::keys::subscriber("line-of-bo"))["user_info"];
  EXPECT_EQ(core::keyring::key_of(user_info), 2);
  EXPECT_EQ(a.keys->current()->open(user_info, other_person), info);
}

TEST_F(reseal, a_value_the_writer_sealed_is_stored_as_it_came) {
  const std::string line_3 = "+8613800138003";
  auto sealed = a.keys->current()->seal(line_3, other_person);
  EXPECT_EQ(store::sealed_by_writer(*a.keys->current(), sealed, other_person), sealed);
  // Nor is one that is not a sealed value, or one no key of the ring opens.
  EXPECT_EQ(store::sealed_by_writer(*a.keys->current(), "plain", other_person), "plain");
  auto foreign = core::keyring({{3, std::string(32, 'f')}}, 3, old_ring.lookup_key())
                     .seal(line_3, other_person);
  EXPECT_EQ(store::sealed_by_writer(*a.keys->current(), foreign, other_person), foreign);
}
