// F1 register against a real redis-server.
#include "core/line_id.hpp"
#include "store/keys.hpp"
#include "tests/integration/store/store_fixture.hpp"

using namespace simsync;
using namespace simsync::testing;

TEST(register_line, first_line_creates_the_account_and_second_joins_it) {
  carrier_store a("carrier-a");
  store::register_request req{person, "+8613800138000", "898601", "h1", "sealed", 1, {},
                              "m"};
  auto first = a.store.register_line(req);
  ASSERT_TRUE(first) << describe(first.error());
  EXPECT_TRUE(first->account_created);
  EXPECT_TRUE(first->line_added);

  req.line = "+8613900139000";
  auto second = a.store.register_line(req);
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->account_created);
  EXPECT_TRUE(second->line_added);

  auto line = a.store.find_line("+8613900139000");
  ASSERT_TRUE(line);
  ASSERT_TRUE(line->has_value());
  EXPECT_EQ((*line)->idcode, person);
  EXPECT_EQ((*line)->token_hash, "h1");
}

TEST(register_line, registering_again_reissues_the_token_only) {
  carrier_store a("carrier-a");
  store::register_request req{person, "+8613800138000", "898601", "old", "sealed", 1, {},
                              "m"};
  ASSERT_TRUE(a.store.register_line(req));
  req.token_hash = "new";
  auto again = a.store.register_line(req);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->account_created);
  EXPECT_FALSE(again->line_added);
  EXPECT_EQ((*a.store.find_line("+8613800138000"))->token_hash, "new");
}

TEST(register_line, a_line_of_another_person_is_refused_and_nothing_changes) {
  carrier_store a("carrier-a");
  register_line(a.store, person, "+8613800138000");
  store::register_request req{
      other_person, "+8613800138000", "898601", "x", "sealed", 1, {}, "m"};
  auto r = a.store.register_line(req);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::line_taken);
  EXPECT_EQ((*a.store.find_line("+8613800138000"))->idcode, person);
  auto exists = a.client.call({"EXISTS", "acct:{" + other_person + "}"});
  EXPECT_EQ(exists->view().integer(), 0);
}

TEST(register_line, unknown_line_is_not_found) {
  carrier_store a("carrier-a");
  auto line = a.store.find_line("+8613800138000");
  ASSERT_TRUE(line);
  EXPECT_FALSE(line->has_value());
}

TEST(register_line, a_line_added_later_gets_the_shared_book_pending) {
  carrier_store a("carrier-a");
  register_line(a.store, person, "+8613800138000");
  upload(a.store, person, "+8613800138000",
         {make_card("u1", "Li"), make_card("u2", "Wang")});
  register_line(a.store, person, "+8613900139000");
  auto fetch =
      a.store.fetch_pending(person, "+8613900139000", proof_of("+8613900139000"));
  ASSERT_TRUE(fetch);
  EXPECT_EQ(kinds(*fetch),
            (std::map<std::string, std::string>{{"u1", "added"}, {"u2", "added"}}));
}

TEST(register_line, scripts_are_reloaded_after_a_redis_restart) {
  carrier_store a("carrier-a");
  register_line(a.store, person, "+8613800138000");
  a.server.restart();
  auto client = a.server.connect_as_carrierd();
  store::account_store fresh(client, "carrier-a", simsync::testing::test_keyring());
  register_line(fresh, person, "+8613800138000");
  EXPECT_TRUE((*fresh.find_line("+8613800138000")).has_value());
}

/// The names of the functions of each library the server holds.
std::vector<std::string> functions_held(store::redis_client& admin) {
  auto list = admin.call({"FUNCTION", "LIST"});
  EXPECT_TRUE(list);
  std::vector<std::string> out;
  auto libraries = list->view();
  for (std::size_t l = 0; l < libraries.size(); ++l) {
    auto library = libraries[l]; // library_name, name, engine, ..., functions, [...]
    for (std::size_t f = 0; f + 1 < library.size(); f += 2) {
      if (library[f].str() == "library_name")
        out.push_back("library " + std::string(library[f + 1].str()));
      if (library[f].str() != "functions")
        continue;
      auto functions = library[f + 1];
      for (std::size_t i = 0; i < functions.size(); ++i)
        out.push_back(std::string(functions[i][1].str())); // name, <name>, ...
    }
  }
  return out;
}

TEST(register_line, the_function_library_is_loaded_again_when_the_server_lacks_it) {
  carrier_store a("carrier-a");
  register_line(a.store, person, "+8613800138000");
  auto mine = functions_held(a.admin);
  ASSERT_EQ(mine.size(), 19u); // the library and its 18 functions
  EXPECT_EQ(mine[0], "library simsync");
  // Lost (an operator flushed them): loaded again on the next call.
  ASSERT_EQ(a.admin.call({"FUNCTION", "FLUSH"})->view().str(), "OK");
  register_line(a.store, person, "+8613900139000");
  EXPECT_EQ(functions_held(a.admin), mine);
  // Another build's library in its place: this build's replaces it, so the
  // server holds one simsync library, and each build runs only its own code.
  auto other = a.admin.call(
      {"FUNCTION", "LOAD", "REPLACE",
       "#!lua name=simsync\nredis.register_function('upload_0000000000000000', "
       "function(KEYS, ARGV) return 1 end)"});
  ASSERT_FALSE(other->view().is_error()) << other->view().str();
  upload(a.store, person, "+8613800138000", {make_card("u1", "Li")});
  EXPECT_EQ(functions_held(a.admin), mine);
  EXPECT_EQ(shared_records(a.client, person).size(), 1u);
}

TEST(remove_line, removes_the_line_and_its_data_but_not_the_other_lines) {
  carrier_store a("carrier-a");
  register_line(a.store, person, "+8613800138000");
  register_line(a.store, person, "+8613900139000");
  upload(a.store, person, "+8613800138000", {make_card("u1", "Li")});
  upload(a.store, person, "+8613900139000", {make_card("p1", "Bank")},
         store::upload_mode::snapshot, store::scope::private_backup);
  auto gone =
      a.store.remove_line(person, "+8613900139000", proof_of("+8613900139000"), {});
  ASSERT_TRUE(gone) << describe(gone.error());
  EXPECT_FALSE(*gone); // the account keeps its other line
  EXPECT_FALSE(a.store.find_line("+8613900139000")->has_value());
  for (std::string key : {"pending:{" + person + "}:+8613900139000",
                          "private:{" + person + "}:+8613900139000",
                          "base:{" + person + "}:+8613900139000"})
    EXPECT_EQ(a.client.call({"EXISTS", key})->view().integer(), 0) << key;
  EXPECT_TRUE(a.store.find_line("+8613800138000")->has_value());
  EXPECT_EQ(a.store
                .read_cards(person, "+8613800138000", proof_of("+8613800138000"),
                            store::scope::shared)
                ->size(),
            1u);
  // Once removed, its token opens nothing, and the carrier finds no line.
  auto again =
      a.store.remove_line(person, "+8613900139000", proof_of("+8613900139000"), {});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), ec::bad_token);
  again = a.store.remove_line(person, "+8613900139000", store::operator_proof, {});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), ec::unknown_line);
}

TEST(remove_line, the_last_line_takes_the_account_and_tells_the_siblings) {
  carrier_store a("carrier-a");
  register_line(a.store, person, "+8613800138000");
  ASSERT_TRUE(a.store.apply_incoming("carrier-b", {sibling_entry(person)}));
  upload(a.store, person, "+8613800138000", {make_card("u1", "Li")});
  ASSERT_EQ(a.client.call({"EXISTS", store::keys::origins(person)})->view().integer(), 1);
  auto gone =
      a.store.remove_line(person, "+8613800138000", proof_of("+8613800138000"), {});
  ASSERT_TRUE(gone);
  EXPECT_TRUE(*gone);
  for (const auto& key : {store::keys::account(person), store::keys::shared(person),
                          store::keys::sims(person), store::keys::siblings(person),
                          store::keys::origins(person)})
    EXPECT_EQ(a.client.call({"EXISTS", key})->view().integer(), 0) << key;
  auto last = a.client.call({"XREVRANGE", "outbox:carrier-b", "+", "-", "COUNT", "1"});
  ASSERT_EQ(last->view().size(), 1u);
  auto fields = last->view()[0][1];
  EXPECT_EQ(fields[3].str(), "retire");
}

TEST(remove_line, a_line_of_another_account_is_not_removed) {
  carrier_store a("carrier-a");
  register_line(a.store, other_person, "+8613800138000");
  // Neither with that line's own token nor as the carrier.
  auto r = a.store.remove_line(person, "+8613800138000", proof_of("+8613800138000"), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::bad_token);
  r = a.store.remove_line(person, "+8613800138000", store::operator_proof, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::unknown_line);
  EXPECT_TRUE(a.store.find_line("+8613800138000")->has_value());
}

// -- the carrier's one owner of an msisdn (its claim) ------------------------------

TEST(claim_line, the_first_claim_wins_and_is_idempotent_for_its_owner) {
  carrier_store a("carrier-a");
  auto first = a.store.claim_line("+8613800138000", person, 1000);
  ASSERT_TRUE(first) << describe(first.error());
  EXPECT_TRUE(first->claimed);
  auto again = a.store.claim_line("+8613800138000", person, 2000);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->claimed); // a retry after a crash between the two steps
  auto other = a.store.claim_line("+8613800138000", other_person, 3000);
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->claimed);
  EXPECT_EQ(other->owner, person);
  EXPECT_EQ(other->since_ms, 2000u);
}

TEST(claim_line, a_take_over_replaces_only_the_owner_it_names) {
  carrier_store a("carrier-a");
  ASSERT_TRUE(a.store.claim_line("+8613800138000", person, 1000));
  auto wrong = a.store.claim_line("+8613800138000", other_person, 2000, "someone-else");
  ASSERT_TRUE(wrong);
  EXPECT_FALSE(wrong->claimed);
  auto taken = a.store.claim_line("+8613800138000", other_person, 2000, person);
  ASSERT_TRUE(taken);
  EXPECT_TRUE(taken->claimed);
  EXPECT_EQ(taken->owner, other_person);
  EXPECT_FALSE(a.store.claim_line("+8613800138000", person, 3000)->claimed);
}

TEST(claim_line, only_the_owner_releases_a_claim) {
  carrier_store a("carrier-a");
  ASSERT_TRUE(a.store.claim_line("+8613800138000", person, 1000));
  EXPECT_FALSE(*a.store.release_claim("+8613800138000", other_person));
  EXPECT_FALSE(a.store.claim_line("+8613800138000", other_person, 2000)->claimed);
  EXPECT_TRUE(*a.store.release_claim("+8613800138000", person));
  EXPECT_TRUE(a.store.claim_line("+8613800138000", other_person, 3000)->claimed);
}

TEST(register_line, a_line_is_claimed_found_and_retired_by_its_line_id) {
  carrier_store a("carrier-a");
  auto keys = a.keys->current();
  const std::string msisdn = "+8613800138000";
  auto line = core::line_id_of(*keys, msisdn);
  auto claim = a.store.claim_line(line, person, 1);
  ASSERT_TRUE(claim) << describe(claim.error());
  EXPECT_TRUE(claim->claimed);
  store::register_request req{person,
                              line,
                              core::iccid_hash_of(*keys, "89860012345678901234"),
                              proof_of(line),
                              "sealed",
                              1,
                              {},
                              keys->seal(msisdn, person)};
  ASSERT_TRUE(a.store.register_line(req));

  auto found = a.store.find_line(line);
  ASSERT_TRUE(found && found->has_value());
  EXPECT_EQ((*found)->idcode, person);
  EXPECT_EQ((*found)->iccid_hash, req.iccid_hash);
  EXPECT_FALSE(a.store.find_line(msisdn)->has_value()); // never by the number
  // The history names the line by its id, with its number sealed for the gateway.
  upload(a.store, person, line, {make_card("u1", "Li")});
  auto page =
      a.store.read_history(person, line, proof_of(line), store::scope::shared, "", 10);
  ASSERT_TRUE(page) << describe(page.error());
  ASSERT_EQ(page->changes.size(), 1u);
  EXPECT_EQ(page->changes[0].line, line);
  ASSERT_EQ(page->sealed_msisdns.count(line), 1u);
  EXPECT_EQ(keys->open(page->sealed_msisdns.at(line), person), msisdn);

  auto removed = a.store.remove_line(person, line, proof_of(line), {});
  ASSERT_TRUE(removed) << describe(removed.error());
  EXPECT_TRUE(*removed); // its last line: the account went too
  EXPECT_FALSE(a.store.find_line(line)->has_value());
  auto released = a.store.release_claim(line, person);
  ASSERT_TRUE(released);
  EXPECT_TRUE(*released);
}
