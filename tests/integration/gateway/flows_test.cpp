// F1-F7 through the terminal HTTP API across three carriers, each a real
// carrierd with its own redis-server.
#include "tests/integration/gateway/gateway_fixture.hpp"

#include <algorithm>

using namespace simsync::testing;

namespace {

struct flows : shared_deployment<flows> {
  static std::vector<std::string> carriers() {
    return {"carrier-a", "carrier-b", "carrier-c"};
  }
};

} // namespace

TEST_F(flows, register_push_update_fetch_apply_across_carriers) {
  // F1: one person, a line at a and a line at b: one account at each.
  auto reg_a =
      http.enrol_and_register("carrier-a", "+8613800138000", "89860012345678901234",
                              "张伟", "11010519491231002X");
  ASSERT_EQ(reg_a.status, 201) << reg_a;
  EXPECT_TRUE(reg_a.json.value("account_created", false));
  auto idcode = reg_a.json.value("idcode", "");
  EXPECT_EQ(idcode.size(), 64u);
  EXPECT_EQ(reg_a.json.value("token", "").rfind(idcode + ".", 0), 0u);
  line a{"carrier-a", "+8613800138000", reg_a.json.value("token", ""), idcode};
  // The same person at b, written differently: normalization gives the same idcode.
  auto reg_b =
      http.enrol_and_register("carrier-b", "+8618600186000", "89860112345678901234",
                              " 张伟 ", "11010519491231002x");
  ASSERT_EQ(reg_b.status, 201) << reg_b;
  EXPECT_EQ(reg_b.json.value("idcode", ""), idcode);
  line b{"carrier-b", "+8618600186000", reg_b.json.value("token", ""), idcode};

  // F2: a shared snapshot on a.
  auto pushed = http.push(a, card("u1", "Li Lei") + card("u2", "Han Meimei") +
                                 card("u3", "Wang Fang"));
  ASSERT_EQ(pushed.status, 200) << pushed;
  EXPECT_EQ(pushed.json.value("added", 0), 3);
  EXPECT_TRUE(pushed.json["rejected"].empty());
  // The uploader never gets its own upload back.
  EXPECT_EQ(http.pending_added(a), 0);

  // F3, F4, F5: it reaches b's line as pending.
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 3; })) << http.update(b);
  auto fetched = http.pending(b);
  ASSERT_EQ(fetched.status, 200) << fetched;
  EXPECT_EQ(fetched.json.value("added", 0), 3);
  auto cards = fetched.json.value("cards", "");
  for (auto name : {"Li Lei", "Han Meimei", "Wang Fang"})
    EXPECT_NE(cards.find(name), std::string::npos) << name;
  // No version asked: the original bytes, vCard 3.0 as pushed.
  EXPECT_NE(cards.find("VERSION:3.0"), std::string::npos);

  // F6: apply; exactly what was fetched leaves the mailbox.
  auto acked = http.ack(b, fetched.json.value("cursor", ""), "apply");
  ASSERT_EQ(acked.status, 200) << acked;
  EXPECT_EQ(acked.json.value("acknowledged", 0), 3);
  EXPECT_EQ(http.pending_added(b), 0);
  auto again = http.pending(b);
  EXPECT_EQ(again.json.value("cards", "x"), "");
  // b's shared store holds the three cards.
  auto held = http.contacts(b);
  ASSERT_EQ(held.status, 200) << held;
  EXPECT_EQ(held.content_type.rfind("text/vcard", 0), 0u);
  EXPECT_NE(held.body.find("Han Meimei"), std::string::npos);

  // A stale cursor is refused: 409.
  auto stale = http.ack(b, fetched.json.value("cursor", ""), "apply");
  EXPECT_EQ(stale.status, 409) << stale;
  EXPECT_TRUE(stale.is_problem()) << stale;

  // F1 bootstrap: a line at c registered now receives the shared store.
  auto c = http.register_line("carrier-c", "+8615000150000", 0);
  ASSERT_FALSE(c.token.empty());
  auto reg_c =
      http.enrol_and_register("carrier-c", "+8615000150001", "89860212345678901234",
                              "张伟", "11010519491231002X");
  ASSERT_EQ(reg_c.status, 201) << reg_c;
  line c2{"carrier-c", "+8615000150001", reg_c.json.value("token", ""), idcode};
  ASSERT_TRUE(eventually([&] { return http.pending_added(c2) == 3; })) << http.update(c2);
  // Person 0's line at c has no share in it.
  EXPECT_EQ(http.pending_added(c), 0);
  EXPECT_EQ(http.contacts(c).body, "");
}

TEST_F(flows, discard_private_backup_delete_and_a_second_line) {
  auto a = http.register_line("carrier-a", "+8613800138100", 1);
  auto b = http.register_line("carrier-b", "+8618600186100", 1);
  // F5 same account: a second line of the person at a.
  auto reg_a2 = http.enrol_and_register(
      "carrier-a", "+8613800138101", "89860012345678901299", "Person 1", id_number_of(1));
  ASSERT_EQ(reg_a2.status, 201) << reg_a2;
  EXPECT_FALSE(reg_a2.json.value("account_created", true));
  line a2{"carrier-a", "+8613800138101", reg_a2.json.value("token", ""), a.idcode};

  // A delta from b reaches a and a2.
  auto pushed = http.push(b, card("d1", "Zhao Lei"), "shared", "POST");
  ASSERT_EQ(pushed.status, 200) << pushed;
  ASSERT_TRUE(eventually([&] { return http.pending_added(a) == 1; })) << http.update(a);
  ASSERT_TRUE(eventually([&] { return http.pending_added(a2) == 1; })) << http.update(a2);

  // F6 discard: the mailbox empties; the card stays in the shared store.
  auto fetched = http.pending(a);
  ASSERT_EQ(fetched.status, 200) << fetched;
  auto discarded = http.ack(a, fetched.json.value("cursor", ""), "discard");
  ASSERT_EQ(discarded.status, 200) << discarded;
  EXPECT_EQ(http.pending_added(a), 0);
  EXPECT_NE(http.contacts(a).body.find("Zhao Lei"), std::string::npos);
  // a2 decides on its own: it applies.
  auto fetched_a2 = http.pending(a2);
  EXPECT_EQ(fetched_a2.json.value("added", 0), 1) << fetched_a2;
  ASSERT_EQ(http.ack(a2, fetched_a2.json.value("cursor", ""), "apply").status, 200);

  // F7: a private upload is kept at a, restorable, and travels nowhere.
  auto priv = http.push(a, card("p1", "Secret Friend"), "private");
  ASSERT_EQ(priv.status, 200) << priv;
  EXPECT_EQ(priv.json.value("added", 0), 1);
  auto restored = http.contacts(a, "?scope=private");
  ASSERT_EQ(restored.status, 200) << restored;
  EXPECT_NE(restored.body.find("Secret Friend"), std::string::npos);
  EXPECT_EQ(http.contacts(a).body.find("Secret Friend"), std::string::npos);
  // Replication from a to b is in order: once a later shared card has
  // arrived at b, the private one would have arrived before it.
  ASSERT_EQ(http.push(a, card("s2", "Later Shared"), "shared", "POST").status, 200);
  ASSERT_TRUE(eventually(
      [&] { return http.contacts(b).body.find("Later Shared") != std::string::npos; }));
  EXPECT_EQ(http.contacts(b).body.find("Secret Friend"), std::string::npos);
  EXPECT_EQ(http.contacts(b, "?scope=private").body, "");
  auto at_b = http.pending(b);
  EXPECT_EQ(at_b.json.value("cards", "").find("Secret Friend"), std::string::npos);
  // The private upload filled no mailbox at a either.
  EXPECT_EQ(http.pending(a2).json.value("cards", "").find("Secret Friend"),
            std::string::npos);

  // Delete one card by uid on b: the removal reaches a's shared store, and
  // a2, which applied the card, is offered its removal.
  ASSERT_EQ(http.ack(b, at_b.json.value("cursor", ""), "apply").status, 200);
  auto removed =
      http.send("carrier-b", "DELETE", "/v1/lines/%2B8618600186100/contacts/d1", b.token);
  ASSERT_EQ(removed.status, 200) << removed;
  EXPECT_EQ(removed.json.value("removed", 0), 1);
  ASSERT_TRUE(eventually([&] {
    auto p = http.pending(a2);
    return p.json.is_object() && p.json["removed_uids"].is_array() &&
           std::count(p.json["removed_uids"].begin(), p.json["removed_uids"].end(),
                      "d1") == 1;
  })) << http.pending(a2);
  EXPECT_EQ(http.contacts(a).body.find("Zhao Lei"), std::string::npos);
  EXPECT_EQ(http.contacts(b).body.find("Zhao Lei"), std::string::npos);
}

TEST_F(flows, pending_cards_in_the_version_asked) {
  auto a = http.register_line("carrier-a", "+8613800138200", 2);
  auto b = http.register_line("carrier-b", "+8618600186200", 2);
  ASSERT_EQ(http.push(a, card("v1", "Version Test")).status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; }));

  auto v4 = http.pending(b, "?version=4.0");
  ASSERT_EQ(v4.status, 200) << v4;
  auto cards = v4.json.value("cards", "");
  EXPECT_NE(cards.find("VERSION:4.0"), std::string::npos) << cards;
  EXPECT_EQ(cards.find("VERSION:3.0"), std::string::npos) << cards;
  EXPECT_NE(cards.find("Version Test"), std::string::npos) << cards;

  auto by_accept = http.pending(b, "", {{"Accept", "text/vcard;version=4.0"}});
  EXPECT_NE(by_accept.json.value("cards", "").find("VERSION:4.0"), std::string::npos)
      << by_accept;
  auto v3 = http.pending(b, "?version=3.0");
  EXPECT_NE(v3.json.value("cards", "").find("VERSION:3.0"), std::string::npos) << v3;

  auto bad = http.pending(b, "?version=2.1");
  EXPECT_EQ(bad.status, 400) << bad;
  EXPECT_TRUE(bad.is_problem()) << bad;
  EXPECT_EQ(bad.json.value("field", ""), "version");

  // The restore read honours the version too.
  auto restored = http.contacts(a, "?version=4.0");
  EXPECT_NE(restored.body.find("VERSION:4.0"), std::string::npos) << restored;
}

TEST_F(flows, deleting_lines_removes_their_data_and_then_the_account) {
  auto first = http.register_line("carrier-a", "+8613800138300", 3);
  auto second = http.register_line("carrier-a", "+8613800138301", 3);
  ASSERT_EQ(http.push(first, card("k1", "Kept")).status, 200);

  auto gone =
      http.send("carrier-a", "DELETE", gateway_client::lines(second), second.token);
  ASSERT_EQ(gone.status, 200) << gone;
  EXPECT_EQ(gone.json.value("line_removed", false), true) << gone;
  EXPECT_EQ(gone.json.value("account_removed", true), false) << gone;
  // The removed line's token is revoked; the other line is untouched.
  EXPECT_EQ(http.contacts(second).status, 401);
  auto kept = http.contacts(first);
  ASSERT_EQ(kept.status, 200) << kept;
  EXPECT_NE(kept.body.find("Kept"), std::string::npos) << kept;

  auto last = http.send("carrier-a", "DELETE", gateway_client::lines(first), first.token);
  ASSERT_EQ(last.status, 200) << last;
  EXPECT_EQ(last.json.value("account_removed", false), true) << last;
  // Registering again starts a new, empty account.
  auto again = http.register_line("carrier-a", "+8613800138300", 3);
  auto empty = http.contacts(again);
  ASSERT_EQ(empty.status, 200) << empty;
  EXPECT_EQ(empty.body.find("Kept"), std::string::npos) << empty;
}
