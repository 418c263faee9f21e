// Nothing a phone sends loses a contact, through the HTTP API of real
// carrierd processes of three carriers: the mass-deletion guard, a stale
// removal that keeps the newer edit, discard as "keep mine", history and
// point-in-time restore; and who may call each.
#include "core/stamp.hpp"
#include "net/instant.hpp"
#include "tests/integration/gateway/gateway_fixture.hpp"

#include <set>
#include <thread>

using namespace simsync::testing;

namespace {

struct contact_safety : shared_deployment<contact_safety> {
  static std::vector<std::string> carriers() {
    return {"carrier-a", "carrier-b", "carrier-c"};
  }

  /// Person `person`'s lines at carrier-a and carrier-b, both registered.
  std::pair<line, line> two_lines(int person) {
    auto a = http.register_line("carrier-a", "+86138" + std::to_string(10000000 + person),
                                person);
    auto b = http.register_line("carrier-b", "+86186" + std::to_string(10000000 + person),
                                person);
    return {a, b};
  }

  /// Fetches what is pending for `l` and answers with `decision`; returns the fetch.
  http_answer take(const line& l, const std::string& decision = "apply") {
    auto fetched = http.pending(l);
    EXPECT_EQ(fetched.status, 200) << fetched;
    auto acked = http.ack(l, fetched.json.value("cursor", ""), decision);
    EXPECT_EQ(acked.status, 200) << acked;
    return fetched;
  }

  /// Waits until `l`'s pending counts are exactly `added, changed, removed`.
  bool pending_is(const line& l, int added, int changed, int removed) {
    return eventually([&] {
      auto a = http.update(l);
      return a.status == 200 && a.json.value("added", -1) == added &&
             a.json.value("changed", -1) == changed &&
             a.json.value("removed", -1) == removed;
    });
  }

  static std::string numbered(int from, int to) {
    std::string book;
    for (int i = from; i < to; ++i)
      book += card("n" + std::to_string(i), "Person " + std::to_string(i));
    return book;
  }

  static int cards_in(const http_answer& a) {
    int n = 0;
    for (auto at = a.body.find("BEGIN:VCARD"); at != std::string::npos;
         at = a.body.find("BEGIN:VCARD", at + 1))
      ++n;
    return n;
  }
};

} // namespace

TEST_F(contact_safety, a_push_removing_most_of_the_book_is_held_until_confirmed) {
  auto [a, b] = two_lines(501);
  ASSERT_EQ(http.push(a, numbered(0, 20)).status, 200);
  auto held = http.push(a, numbered(0, 4));
  ASSERT_EQ(held.status, 409) << held;
  EXPECT_TRUE(held.is_problem()) << held;
  EXPECT_EQ(held.json.value("type", ""), "urn:simsync:problem:mass-deletion");
  EXPECT_EQ(held.json.value("would_remove", 0), 16);
  EXPECT_EQ(held.json.value("book_size", 0), 20);
  EXPECT_EQ(cards_in(http.contacts(a)), 20); // nothing stored
  auto private_held = http.push(a, numbered(0, 20), "private");
  ASSERT_EQ(private_held.status, 200);
  EXPECT_EQ(http.push(a, numbered(0, 1), "private").status, 409);
  auto bad = http.push(a, numbered(0, 4), "shared&confirm_removals=many");
  EXPECT_EQ(bad.status, 400) << bad;
  auto confirmed = http.push(a, numbered(0, 4), "shared&confirm_removals=16");
  ASSERT_EQ(confirmed.status, 200) << confirmed;
  EXPECT_EQ(confirmed.json.value("removed", 0), 16);
  EXPECT_EQ(cards_in(http.contacts(a)), 4);
}

// The sequence of the issue: line A edits k1 (v2); line B, which still holds
// v1, uploads a snapshot without k1.
TEST_F(contact_safety, an_edit_beats_a_stale_removal_and_is_offered_back) {
  auto [a, b] = two_lines(502);
  ASSERT_EQ(http.push(a, card("k1", "Li v1") + card("k2", "Wang")).status, 200);
  ASSERT_TRUE(pending_is(b, 2, 0, 0));
  take(b);
  ASSERT_EQ(http.push(a, card("k1", "Li v2") + card("k2", "Wang")).status, 200);
  ASSERT_TRUE(pending_is(b, 0, 1, 0)); // v2 reached carrier-b
  auto stale = http.push(b, card("k2", "Wang"));
  ASSERT_EQ(stale.status, 200) << stale;
  EXPECT_EQ(stale.json.value("removed", -1), 0);
  ASSERT_EQ(stale.json["conflicts"].size(), 1u) << stale;
  EXPECT_EQ(stale.json["conflicts"][0].value("uid", ""), "k1");
  EXPECT_EQ(stale.json["conflicts"][0].value("reason", ""), "changed-since-seen");
  // v2 stays at both carriers and is offered to line B as a card to add.
  for (const auto* l : {&a, &b})
    EXPECT_NE(http.contacts(*l).body.find("Li v2"), std::string::npos);
  auto offered = http.pending(b);
  EXPECT_EQ(offered.json.value("added", 0), 1) << offered;
  EXPECT_NE(offered.json.value("cards", "").find("Li v2"), std::string::npos);
  // A DELETE of a card line B has not seen is a conflict too.
  auto deleted = http.send("carrier-b", "DELETE",
                           gateway_client::lines(b) + "/contacts/k1", b.token);
  ASSERT_EQ(deleted.status, 200) << deleted;
  EXPECT_EQ(deleted.json.value("removed", -1), 0);
  EXPECT_EQ(deleted.json["conflicts"][0].value("reason", ""), "not-held");
}

TEST_F(contact_safety, a_removal_racing_an_edit_at_another_carrier_keeps_the_edit) {
  auto [a, b] = two_lines(503);
  ASSERT_EQ(http.push(a, card("k1", "Li v1") + card("k2", "Wang")).status, 200);
  ASSERT_TRUE(pending_is(b, 2, 0, 0));
  take(b);
  // Carrier-b stops, so the edit and the removal cross each other.
  d->stop("carrier-b", SIGTERM);
  ASSERT_EQ(http.push(a, card("k1", "Li v2") + card("k2", "Wang")).status, 200);
  d->start("carrier-b");
  auto removal = http.push(
      b, card("k2", "Wang")); // made later than the edit, if v2 is not there yet
  ASSERT_EQ(removal.status, 200) << removal;
  ASSERT_TRUE(eventually([&] {
    auto at_a = http.contacts(a).body, at_b = http.contacts(b).body;
    return card_set(at_a) == card_set(at_b) && at_a.find("Li v2") != std::string::npos;
  })) << http.contacts(a)
      << "\n"
      << http.contacts(b);
}

// The other sequence of the issue: line A discards a removal and re-uploads
// its book, which still holds k1: every carrier converges on line A's choice.
TEST_F(contact_safety, discard_means_keep_mine_and_every_carrier_converges) {
  auto [a, b] = two_lines(504);
  ASSERT_EQ(http.push(a, card("k1", "Li") + card("k2", "Wang")).status, 200);
  ASSERT_TRUE(pending_is(b, 2, 0, 0));
  take(b);
  auto removal = http.push(b, card("k2", "Wang"));
  ASSERT_EQ(removal.json.value("removed", 0), 1) << removal;
  ASSERT_TRUE(pending_is(a, 0, 0, 1));
  take(a, "discard");
  auto again = http.push(a, card("k1", "Li") + card("k2", "Wang"));
  ASSERT_EQ(again.status, 200) << again;
  EXPECT_EQ(again.json.value("added", 0), 1) << again;
  ASSERT_TRUE(pending_is(b, 1, 0, 0)); // k1 offered back to line B
  for (const auto* l : {&a, &b})
    EXPECT_NE(http.contacts(*l).body.find("Li"), std::string::npos);
  EXPECT_EQ(card_set(http.contacts(a).body), card_set(http.contacts(b).body));
}

TEST_F(contact_safety, history_lists_changes_in_pages_with_their_origin) {
  auto [a, b] = two_lines(505);
  ASSERT_EQ(http.push(a, card("k1", "Li") + card("k2", "Wang")).status, 200);
  ASSERT_EQ(http.push(a, card("k1", "Li Lei")).status, 200);
  ASSERT_TRUE(pending_is(b, 1, 0, 0));
  auto page = http.send("carrier-a", "GET", gateway_client::lines(a) + "/history?limit=3",
                        a.token);
  ASSERT_EQ(page.status, 200) << page;
  ASSERT_EQ(page.json["changes"].size(), 3u) << page;
  for (const auto& c : page.json["changes"]) {
    EXPECT_EQ(c.value("carrier", ""), "carrier-a");
    EXPECT_EQ(c.value("line", ""), a.msisdn);
    EXPECT_TRUE(simsync::net::unix_ms_of(c.value("at", "")).has_value()) << c;
  }
  ASSERT_TRUE(page.json.contains("next"));
  auto rest = http.send("carrier-a", "GET",
                        gateway_client::lines(a) +
                            "/history?limit=3&next=" + page.json.value("next", ""),
                        a.token);
  ASSERT_EQ(rest.json["changes"].size(), 1u) << rest;
  EXPECT_EQ(rest.json["changes"][0].value("kind", ""), "added");
  EXPECT_FALSE(rest.json.contains("next"));
  // The replicated changes are in carrier-b's history too, from line A,
  // which carrier-b knows only by carrier-a's opaque line id.
  auto at_b =
      http.send("carrier-b", "GET", gateway_client::lines(b) + "/history", b.token);
  ASSERT_EQ(at_b.status, 200) << at_b;
  ASSERT_FALSE(at_b.json["changes"].empty());
  EXPECT_EQ(at_b.json["changes"][0].value("carrier", ""), "carrier-a");
  EXPECT_EQ(at_b.json["changes"][0].value("line", ""), d->line_id("carrier-a", a.msisdn));
  // Line B's own change shows its number at carrier-b, its line id at carrier-a.
  ASSERT_EQ(http.push(b, card("k3", "Zhou")).status, 200);
  auto own = http.send("carrier-b", "GET", gateway_client::lines(b) + "/history?limit=1",
                       b.token);
  ASSERT_EQ(own.status, 200) << own;
  EXPECT_EQ(own.json["changes"][0].value("line", ""), b.msisdn) << own;
  ASSERT_TRUE(eventually([&] {
    auto at_a = http.send("carrier-a", "GET",
                          gateway_client::lines(a) + "/history?limit=1", a.token);
    return at_a.status == 200 && !at_a.json["changes"].empty() &&
           at_a.json["changes"][0].value("uid", "") == "k3" &&
           at_a.json["changes"][0].value("line", "") == d->line_id("carrier-b", b.msisdn);
  }));
  // Bad paging is refused.
  for (auto query : {"?limit=0", "?limit=x", "?next=abc", "?scope=all"})
    EXPECT_EQ(http.send("carrier-a", "GET", gateway_client::lines(a) + "/history" + query,
                        a.token)
                  .status,
              400)
        << query;
}

TEST_F(contact_safety, restore_previews_then_applies_and_reaches_the_other_carrier) {
  auto [a, b] = two_lines(506);
  auto first = card("k1", "Li") + card("k2", "Wang") + card("k3", "Zhao");
  ASSERT_EQ(http.push(a, first).status, 200);
  ASSERT_TRUE(pending_is(b, 3, 0, 0));
  take(b);
  std::this_thread::sleep_for(std::chrono::milliseconds{20});
  auto then = simsync::net::rfc3339_of(simsync::core::unix_now_ms());
  std::this_thread::sleep_for(std::chrono::milliseconds{20});
  ASSERT_EQ(http.push(a, card("k1", "Li Lei") + card("k4", "Qian")).status, 200);
  ASSERT_TRUE(pending_is(b, 1, 1, 2));
  take(b);

  auto restore = [&](bool preview) {
    nlohmann::json body{{"at", then}, {"scope", "shared"}, {"preview", preview}};
    return http.send("carrier-a", "POST", gateway_client::lines(a) + "/restore", a.token,
                     body.dump(), "application/json");
  };
  auto before = http.contacts(a).body;
  auto preview = restore(true);
  ASSERT_EQ(preview.status, 200) << preview;
  EXPECT_EQ(preview.json.value("added", 0), 2);   // k2, k3
  EXPECT_EQ(preview.json.value("changed", 0), 1); // k1
  EXPECT_EQ(preview.json.value("removed", 0), 1); // k4
  EXPECT_TRUE(preview.json.value("preview", false));
  EXPECT_EQ(http.contacts(a).body, before);
  auto done = restore(false);
  ASSERT_EQ(done.status, 200) << done;
  EXPECT_EQ(cards_in(http.contacts(a)), 3);
  EXPECT_NE(http.contacts(a).body.find("FN:Li\r"), std::string::npos);
  // Like an upload from line A: carrier-b's line is offered the change set.
  ASSERT_TRUE(pending_is(b, 2, 1, 1));

  auto send_restore = [&](const nlohmann::json& body) {
    return http.send("carrier-a", "POST", gateway_client::lines(a) + "/restore", a.token,
                     body.dump(), "application/json");
  };
  EXPECT_EQ(send_restore({{"at", "last tuesday"}}).status, 400);
  EXPECT_EQ(send_restore({{"at", "2999-01-01T00:00:00Z"}}).status, 400);
  EXPECT_EQ(send_restore({{"at", then}, {"scope", "both"}}).status, 400);
  EXPECT_EQ(send_restore({{"at", then}, {"preview", "yes"}}).status, 400);
  EXPECT_EQ(send_restore({{"scope", "shared"}}).status, 400);
}

TEST_F(contact_safety, only_the_line_itself_reads_its_history_or_restores_it) {
  auto [a, b] = two_lines(507);
  auto [c, d_] = two_lines(508); // another person
  nlohmann::json body{{"at", "2026-01-01T00:00:00Z"}, {"preview", true}};
  for (const auto& token : {std::string(""), c.token, b.token}) {
    auto history =
        http.send("carrier-a", "GET", gateway_client::lines(a) + "/history", token);
    auto restore = http.send("carrier-a", "POST", gateway_client::lines(a) + "/restore",
                             token, body.dump(), "application/json");
    // No token, or one this carrier never issued (the same person's line at
    // carrier-b): 401. A live token of another person's line here: 403.
    int expected = token.empty() || token == b.token ? 401 : 403;
    EXPECT_EQ(history.status, expected) << history;
    EXPECT_EQ(restore.status, expected) << restore;
    EXPECT_TRUE(history.is_problem()) << history;
  }
}
