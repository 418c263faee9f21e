// What a peer carrier delivers is checked before anything is written: an
// entry that fails is kept whole, with its reason, among that peer's dead
// letters, and the entries after it still arrive. Real carrierd and
// redis-server processes; the entries are delivered to a node's federation
// port as a peer's link delivers them.
#include "tests/integration/node/node_fixture.hpp"

#include "core/record.hpp"
#include "core/stamp.hpp"
#include "store/dead_letters.hpp"
#include "store/keys.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

using namespace simsync;
using namespace simsync::testing;

namespace {

/// One card as a peer's outbox carries it: netstrings of uid and record.
std::string batch_of(const std::string& uid, std::uint64_t hlc, const std::string& name) {
  core::stamped_card rec;
  rec.st = core::stamp{hlc, "carrier-b", "+8618600186000"};
  rec.card =
      "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + name + "\r\nEND:VCARD\r\n";
  auto bytes = core::encode_record(rec);
  return std::to_string(uid.size()) + ":" + uid + std::to_string(bytes.size()) + ":" +
         bytes;
}

std::uint64_t now_hlc() {
  return core::unix_now_ms() * core::hlc_logical_per_ms;
}

} // namespace

TEST(dead_letters, bad_entries_are_kept_with_their_reason_and_the_rest_arrives) {
  deployment d{{"carrier-a", "carrier-b"}};
  carrier_client client{d};
  const std::string line_a = "+8613800138000", line_a2 = "+8613800138001";
  client.register_line("carrier-a", person, line_a, {"carrier-b"});
  client.register_line("carrier-a", other_person, line_a2, {"carrier-b"});
  ASSERT_EQ(client.upload("carrier-a", person, line_a, {make_card("k1", "Kept")}).added,
            1u);
  // carrier-b holds lines of both people: its holds make it their accounts'
  // sibling here, so its good batches for them are taken.
  ASSERT_TRUE(client.deliver(
      "carrier-a", peer_batch{"carrier-b",
                              {{"0-1", person, store::outbox_kind::hold, ""},
                               {"0-2", other_person, store::outbox_kind::hold, ""}}}));

  peer_batch delivery{
      "carrier-b",
      {// A stamp valid in form, beyond what Lua numbers hold exactly.
       {"1-0", person, store::outbox_kind::batch,
        batch_of("f1", 9'999'999'999'999'999, "Far Future")},
       // An hour ahead of the receiver's clock (the default allows 5 minutes).
       {"2-0", person, store::outbox_kind::batch,
        batch_of("f2", now_hlc() + 3'600'000'000, "Ahead")},
       // A card larger than the terminal API takes.
       {"3-0", person, store::outbox_kind::batch,
        batch_of("big", now_hlc(), std::string(2u << 20, 'x'))},
       // Not an idcode.
       {"4-0", "not-an-idcode", store::outbox_kind::ask, ""},
       // A record that is not one.
       {"5-0", person, store::outbox_kind::batch, "2:u112:not a record"},
       // And a good entry for another account, after them all.
       {"6-0", other_person, store::outbox_kind::batch,
        batch_of("g1", now_hlc(), "Good News")}}};
  auto acked = client.deliver("carrier-a", delivery);
  ASSERT_TRUE(acked) << describe(acked.error());
  EXPECT_EQ(*acked, "6-0"); // the link goes on past the bad entries

  // The good entry arrived; the bad ones changed nothing.
  EXPECT_EQ(client.counts("carrier-a", other_person, line_a2).added, 1u);
  auto kept = client.shared("carrier-a", person, line_a);
  EXPECT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept.count("k1"), 1u);
  // The account's clock was not pushed into the future: a new edit there is
  // stamped now, and the account still reads and writes.
  auto redis = d.redis("carrier-a").connect();
  auto clock = redis.call({"HGET", "acct:{" + person + "}", "clock"});
  ASSERT_TRUE(clock);
  EXPECT_LT(std::stoull(std::string(clock->view().str())), now_hlc() + 60'000'000);
  EXPECT_EQ(client
                .upload("carrier-a", person, line_a, {make_card("k2", "Later")},
                        store::upload_mode::delta)
                .added,
            1u);

  // Each bad entry is kept whole, with why.
  auto letters = redis.call({"XRANGE", store::keys::dead_letters("carrier-b"), "-", "+"});
  ASSERT_TRUE(letters);
  ASSERT_EQ(letters->view().size(), 5u);
  std::vector<std::string> entries, reasons;
  for (std::size_t i = 0; i < letters->view().size(); ++i) {
    auto fields = letters->view()[i][1];
    for (std::size_t k = 0; k + 1 < fields.size(); k += 2) {
      if (fields[k].str() == "entry")
        entries.emplace_back(fields[k + 1].str());
      if (fields[k].str() == "reason")
        reasons.emplace_back(fields[k + 1].str());
    }
  }
  EXPECT_EQ(entries, (std::vector<std::string>{"1-0", "2-0", "3-0", "4-0", "5-0"}));
  ASSERT_EQ(reasons.size(), 5u);
  EXPECT_NE(reasons[0].find("beyond"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[1].find("ahead"), std::string::npos) << reasons[1];
  EXPECT_NE(reasons[2].find("larger"), std::string::npos) << reasons[2];
  EXPECT_NE(reasons[3].find("idcode"), std::string::npos) << reasons[3];
  EXPECT_NE(reasons[4].find("parse"), std::string::npos) << reasons[4];

  // The operator sees them on the admin port (with the admin key only),
  // and drops one once dealt with.
  httplib::Client admin("127.0.0.1", d.admin_port("carrier-a"));
  httplib::Headers key{{"Authorization", "Bearer " + d.admin_key("carrier-a")}};
  EXPECT_EQ(admin.Get("/admin/dead-letters/carrier-b")->status, 401);
  auto listed = admin.Get("/admin/dead-letters/carrier-b?limit=10", key);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->status, 200) << listed->body;
  auto json = nlohmann::json::parse(listed->body);
  ASSERT_EQ(json["letters"].size(), 5u) << listed->body;
  EXPECT_EQ(json["letters"][0].value("entry", ""), "1-0");
  EXPECT_NE(json["letters"][0].value("reason", "").find("beyond"), std::string::npos);
  EXPECT_FALSE(json["letters"][0].contains("batch")); // contact data stays out of it
  auto first = json["letters"][0].value("id", "");
  EXPECT_EQ(admin.Delete("/admin/dead-letters/carrier-b/" + first)->status, 401);
  EXPECT_EQ(admin.Delete("/admin/dead-letters/carrier-b/" + first, key)->status, 200);
  EXPECT_EQ(admin.Delete("/admin/dead-letters/carrier-b/" + first, key)->status, 404);
  auto after =
      nlohmann::json::parse(admin.Get("/admin/dead-letters/carrier-b", key)->body);
  EXPECT_EQ(after["letters"].size(), 4u);

  // Delivered again (the link resends after a lost ack): nothing new applied.
  ASSERT_TRUE(client.deliver("carrier-a", delivery));
  EXPECT_EQ(client.counts("carrier-a", other_person, line_a2).added, 1u);

  // How many wait shows per peer in /metrics (the node samples once a second).
  EXPECT_TRUE(eventually([&] {
    auto metrics = admin.Get("/metrics");
    return metrics && metrics->body.find("simsync_dead_letters{") != std::string::npos &&
           metrics->body.find("peer=\"carrier-b\"} 9") != std::string::npos;
  })) << admin.Get("/metrics")->body;

  // A retry checks the entry again: one that still fails stays kept.
  auto still_ahead = json["letters"][1].value("id", "");
  auto refused = admin.Post("/admin/dead-letters/carrier-b/" + still_ahead + "/retry",
                            key, "", "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 409) << refused->body;
  EXPECT_NE(refused->body.find("still-refused"), std::string::npos) << refused->body;
  EXPECT_EQ(admin.Post("/admin/dead-letters/carrier-b/" + still_ahead + "/retry", "", "")
                ->status,
            401);

  // A letter whose cause is gone (kept while the sender's clock ran ahead,
  // say): the retry applies it and drops it.
  ASSERT_TRUE(store::keep_dead_letters(
      redis, d.keys("carrier-a"), "carrier-b",
      {store::dead_letter{
          {"7-0", person, store::outbox_kind::batch,
           batch_of("late", now_hlc(), "Late Friend")},
          "a stamp is further ahead of this carrier's clock than allowed"}},
      core::unix_now_ms()));
  auto listing = nlohmann::json::parse(
      admin.Get("/admin/dead-letters/carrier-b?limit=100", key)->body)["letters"];
  std::string late_id;
  for (const auto& letter : listing)
    if (letter.value("entry", "") == "7-0")
      late_id = letter.value("id", "");
  ASSERT_FALSE(late_id.empty());
  auto retried = admin.Post("/admin/dead-letters/carrier-b/" + late_id + "/retry", key,
                            "", "application/json");
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->status, 200) << retried->body;
  EXPECT_EQ(client.shared("carrier-a", person, line_a).count("late"), 1u);
  EXPECT_EQ(admin
                .Post("/admin/dead-letters/carrier-b/" + late_id + "/retry", key, "",
                      "application/json")
                ->status,
            404);

  // The person leaves (the last line's removal, as the gateway asks the
  // account's shard): what the node kept about their account goes with it,
  // another account's stays.
  auto letters_about = [&](const std::string& idcode) {
    return stream_entries_with(redis, store::keys::dead_letters("carrier-b"), "idcode",
                               idcode);
  };
  ASSERT_GT(letters_about(person), 0u);
  auto others = letters_about("not-an-idcode");
  ASSERT_GT(others, 0u);
  auto account_gone = client.ask<bool>("carrier-a", person, atom::remove_line_v, person,
                                       line_a, client.proof);
  ASSERT_TRUE(account_gone) << describe(account_gone.error());
  EXPECT_TRUE(*account_gone);
  EXPECT_EQ(letters_about(person), 0u);
  EXPECT_EQ(letters_about("not-an-idcode"), others);
}
