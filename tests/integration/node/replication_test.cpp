// F1-F7 across three carriers, each a real carrierd process with its own
// redis-server, replicating through CAF remote actors on loopback.
#include "tests/integration/node/admin_counts.hpp"
#include "tests/integration/node/node_fixture.hpp"

#include "store/keys.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";
const std::string line_a2 = "+8613800138001";
const std::string line_b = "+8618600186000";
const std::string line_c = "+8615000150000";

struct three_carriers : ::testing::Test {
  void register_everywhere() {
    client.register_line("carrier-a", person, line_a, peers_of("carrier-a"));
    client.register_line("carrier-b", person, line_b, peers_of("carrier-b"));
  }

  /// `from`'s link to `to` says its outbox holds nothing unacknowledged.
  bool outbox_drained(const std::string& from, const std::string& to) {
    for (const auto& actor : admin_actors(d, from))
      if (actor.value("name", "") == "peer_link/" + to)
        return actor.value("outbox", -1) == 0;
    return false;
  }

  deployment d{{"carrier-a", "carrier-b", "carrier-c"}};
  carrier_client client{d};
};

std::vector<core::book_entry> book(int n, const std::string& tag) {
  std::vector<core::book_entry> out;
  for (int i = 0; i < n; ++i)
    out.push_back(make_card("u" + std::to_string(i), tag + " " + std::to_string(i)));
  return out;
}

} // namespace

TEST_F(three_carriers, a_shared_upload_reaches_the_sibling_line_and_nowhere_else) {
  register_everywhere();
  auto r = client.upload("carrier-a", person, line_a, book(20, "Li"));
  EXPECT_EQ(r.added, 20u);
  ASSERT_TRUE(eventually([&] {
    return client.counts("carrier-b", person, line_b).added == 20;
  })) << "carrier-b's line has "
      << client.counts("carrier-b", person, line_b).added;
  EXPECT_EQ(client.shared("carrier-a", person, line_a),
            client.shared("carrier-b", person, line_b));
  // carrier-c holds no account for the person: nothing is stored there.
  EXPECT_TRUE(client.shared("carrier-c", person, line_c).empty());
  // The uploader never gets its own upload back.
  EXPECT_EQ(client.counts("carrier-a", person, line_a).added, 0u);
}

TEST_F(three_carriers, a_siblings_changes_are_applied_by_the_federation_endpoint_alone) {
  // The endpoint applies a delivery of changes itself; only directory entries
  // and entries that fail their checks go by way of the router and a shard.
  // Either way the change arrives, so only the counts show which way it took.
  register_everywhere();
  client.upload("carrier-a", person, line_a, book(1, "Li"));
  ASSERT_TRUE(
      eventually([&] { return client.shared("carrier-b", person, line_b).size() == 1; }));
  // Quiet: the directory entries of the registrations are in; the snapshot
  // (taken once a second) stops moving.
  auto before = settled_processed(d, "carrier-b");
  ASSERT_FALSE(before.empty()) << "carrier-b's counts never settled";
  for (int i = 0; i < 3; ++i)
    client.upload("carrier-a", person, line_a,
                  {make_card("d" + std::to_string(i), "Delta " + std::to_string(i))},
                  store::upload_mode::delta);
  ASSERT_TRUE(
      eventually([&] { return client.shared("carrier-b", person, line_b).size() == 4; }));
  auto after = processed_once(d, "carrier-b", before, "federation", 3);
  ASSERT_GE(after["federation"], before["federation"] + 3)
      << "the endpoint took " << after["federation"] - before["federation"] << " entries";
  // The router is the only way from the endpoint to a shard (the test's own
  // reads ask the shards directly, so their counts move).
  EXPECT_EQ(after["router"], before["router"]) << "the router was asked";
}

TEST_F(three_carriers, a_large_books_requests_are_applied_while_the_next_is_checked) {
  // A book of 6,000 cards leaves as six entries of at most 1,000, six
  // requests sent at once. While others wait, the endpoint hands each one it
  // has checked to its applier and checks the next while Redis applies it.
  // Two versions of each card travel: carrier-b must end with the newer.
  register_everywhere();
  auto before = settled_processed(d, "carrier-b");
  ASSERT_FALSE(before.empty()) << "carrier-b's counts never settled";
  client.upload("carrier-a", person, line_a, book(6000, "Li"));
  client.upload("carrier-a", person, line_a, book(6000, "Wang"));
  ASSERT_TRUE(eventually([&] {
    auto cards = client.shared("carrier-b", person, line_b);
    return cards.size() == 6000 &&
           std::all_of(cards.begin(), cards.end(), [](const auto& c) {
             return c.second.find("Wang") != std::string::npos;
           });
  })) << "carrier-b does not hold the second version of every card";
  EXPECT_EQ(client.shared("carrier-a", person, line_a),
            client.shared("carrier-b", person, line_b));
  auto after = processed_once(d, "carrier-b", before, "federation", 12);
  ASSERT_GE(after["federation"], before["federation"] + 12)
      << "the endpoint took " << after["federation"] - before["federation"] << " entries";
  EXPECT_GT(after["federation_applier"], before["federation_applier"])
      << "the endpoint applied every request itself";
  EXPECT_EQ(after["router"], before["router"]) << "the router was asked";
}

TEST_F(three_carriers,
       an_outbox_entry_altered_where_it_was_stored_does_not_stop_the_link) {
  register_everywhere();
  client.upload("carrier-a", person, line_a, book(1, "Li"));
  ASSERT_TRUE(
      eventually([&] { return client.shared("carrier-b", person, line_b).size() == 1; }));
  // A copy of u0's record with its sealed card altered, in carrier-a's outbox
  // for carrier-b, as if it had been damaged there: it can never open.
  auto redis = d.redis("carrier-a").connect();
  auto record = redis.call({"HGET", store::keys::shared(person), "u0"});
  ASSERT_TRUE(record);
  std::string altered(record->view().str());
  altered.back() ^= 1;
  ASSERT_TRUE(redis.call({"XADD", store::keys::outbox("carrier-b"), "*", "id", person,
                          "kind", "batch", "cards", "1", "u0", altered}));
  // A change after it still arrives: the damaged entry is set aside.
  client.upload("carrier-a", person, line_a, {make_card("u1", "Wang")},
                store::upload_mode::delta);
  ASSERT_TRUE(
      eventually([&] { return client.shared("carrier-b", person, line_b).size() == 2; }));
  EXPECT_EQ(client.shared("carrier-a", person, line_a),
            client.shared("carrier-b", person, line_b));
  auto aside = redis.call({"XLEN", store::keys::set_aside("carrier-b")});
  ASSERT_TRUE(aside);
  EXPECT_EQ(aside->view().integer(), 1);
  // An operator sees it in /metrics (the node samples once a second).
  httplib::Client admin("127.0.0.1", d.admin_port("carrier-a"));
  auto set_aside_metric_is = [&](const std::string& count) {
    auto metrics = admin.Get("/metrics");
    if (!metrics)
      return false;
    std::istringstream lines(metrics->body);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("simsync_outbox_set_aside{", 0) == 0 &&
          line.find("peer=\"carrier-b\"} ") != std::string::npos)
        return line.substr(line.rfind(' ') + 1) == count;
    return false;
  };
  EXPECT_TRUE(eventually([&] { return set_aside_metric_is("1"); }))
      << admin.Get("/metrics")->body;

  // The operator reads it on the admin port, with this carrier's admin key
  // only: which account, how many cards, why and when; then drops it once
  // the damage is understood, which takes the count back to 0.
  httplib::Headers key{{"Authorization", "Bearer " + d.admin_key("carrier-a")}};
  httplib::Headers other_key{{"Authorization", "Bearer " + d.admin_key("carrier-b")}};
  EXPECT_EQ(admin.Get("/admin/set-aside/carrier-b")->status, 401);
  EXPECT_EQ(admin.Get("/admin/set-aside/carrier-b", other_key)->status, 401);
  EXPECT_EQ(admin.Get("/admin/set-aside/carrier-b?limit=0", key)->status, 400);
  auto listed = admin.Get("/admin/set-aside/carrier-b?limit=10", key);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->status, 200) << listed->body;
  auto entries = nlohmann::json::parse(listed->body)["entries"];
  ASSERT_EQ(entries.size(), 1u) << listed->body;
  EXPECT_EQ(entries[0].value("idcode", ""), person);
  EXPECT_EQ(entries[0].value("kind", ""), "batch");
  EXPECT_EQ(entries[0].value("cards", 0), 1);
  EXPECT_FALSE(entries[0].value("why", "").empty()) << listed->body;
  EXPECT_FALSE(entries[0].value("at", "").empty()) << listed->body;
  auto id = entries[0].value("id", "");
  EXPECT_EQ(admin.Delete("/admin/set-aside/carrier-b/" + id)->status, 401);
  EXPECT_EQ(admin.Delete("/admin/set-aside/carrier-b/" + id, other_key)->status, 401);
  EXPECT_EQ(admin.Delete("/admin/set-aside/carrier-b/" + id, key)->status, 200);
  EXPECT_EQ(admin.Delete("/admin/set-aside/carrier-b/" + id, key)->status, 404);
  EXPECT_EQ(admin.Delete("/admin/set-aside/carrier-b/not-an-id", key)->status, 404);
  auto after = admin.Get("/admin/set-aside/carrier-b", key);
  ASSERT_TRUE(after);
  EXPECT_EQ(nlohmann::json::parse(after->body)["entries"].size(), 0u) << after->body;
  EXPECT_TRUE(eventually([&] { return set_aside_metric_is("0"); }))
      << admin.Get("/metrics")->body;
}

TEST_F(three_carriers,
       an_entry_whose_cards_are_gone_is_trimmed_and_does_not_stop_the_link) {
  // An outbox entry names its cards; if the account is removed before the
  // link reads it, the entry has nothing to send. Alone in its window (the
  // link reads it as soon as it is written), it must be trimmed, not wait
  // for an answer that never comes, nor reach the peer as an empty batch.
  register_everywhere();
  ASSERT_TRUE(eventually([&] { return outbox_drained("carrier-a", "carrier-b"); }));
  auto redis = d.redis("carrier-a").connect();
  ASSERT_TRUE(redis.call({"XADD", store::keys::outbox("carrier-b"), "*", "id",
                          other_person, "kind", "batch", "uids", "1", "gone", ""}));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  client.upload("carrier-a", person, line_a, book(1, "Li"));
  ASSERT_TRUE(eventually([&] {
    return client.shared("carrier-b", person, line_b).size() == 1;
  })) << "the link stopped at the entry with no card";
  EXPECT_TRUE(eventually([&] {
    auto depth = redis.call({"XLEN", store::keys::outbox("carrier-b")});
    return depth && depth->view().integer() == 0;
  }));
  auto letters = d.redis("carrier-b")
                     .connect()
                     .call({"XLEN", store::keys::dead_letters("carrier-a")});
  ASSERT_TRUE(letters);
  EXPECT_EQ(letters->view().integer(), 0) << "an empty batch reached carrier-b";
}

TEST_F(three_carriers, what_a_sibling_acknowledged_leaves_the_outbox) {
  // A link trims at most every 100 ms and reads past what was acknowledged
  // meanwhile; once idle it trims everything at its next read after that. Without a trim
  // the outbox would keep every entry: the registrations' and the uploads'.
  register_everywhere();
  client.upload("carrier-a", person, line_a, book(5, "Li"));
  for (int i = 0; i < 5; ++i)
    client.upload("carrier-a", person, line_a,
                  {make_card("d" + std::to_string(i), "Delta " + std::to_string(i))},
                  store::upload_mode::delta);
  ASSERT_TRUE(eventually(
      [&] { return client.shared("carrier-b", person, line_b).size() == 10; }));
  // The snapshot (once a second) must have seen the six batches acknowledged.
  int depth = -1, acknowledged = 0;
  EXPECT_TRUE(eventually([&] {
    for (const auto& actor : admin_actors(d, "carrier-a"))
      if (actor.value("name", "") == "peer_link/carrier-b") {
        depth = actor.value("outbox", -1);
        acknowledged = actor.value("processed", 0);
      }
    return acknowledged >= 6 && depth == 0;
  })) << "outbox:carrier-b at carrier-a holds "
      << depth << " entries, with " << acknowledged << " acknowledged";
}

TEST_F(three_carriers, a_link_trims_its_outbox_at_most_once_per_interval) {
  // Each trim is a write Redis syncs to disk. Edits that come one at a time,
  // the link idle between them, are a window each: trimmed after every one,
  // they would cost as many fsynced writes as the edits themselves.
  register_everywhere();
  client.upload("carrier-a", person, line_a, book(1, "Li"));
  ASSERT_TRUE(eventually([&] { return outbox_drained("carrier-a", "carrier-b"); }));
  auto redis = d.redis("carrier-a").connect();
  // Both links' outboxes trimmed: the registrations' asks to carrier-c too,
  // so that only carrier-b's link trims from here on.
  auto outbox_length = [&](const std::string& peer) {
    auto depth = redis.call({"XLEN", store::keys::outbox(peer)});
    return depth ? depth->view().integer() : -1;
  };
  ASSERT_TRUE(eventually([&] {
    return outbox_length("carrier-b") == 0 && outbox_length("carrier-c") == 0;
  }));
  auto before = command_calls(redis, "xtrim");
  ASSERT_GE(before, 0);
  // Other clients keep that Redis awake, as a busy carrier's do: a quiet
  // Redis ends a blocked read that timed out only at its next wake (hz 10),
  // which would hide a link's empty reads.
  std::atomic<bool> editing{true};
  std::thread traffic([&] {
    auto other = d.redis("carrier-a").connect();
    while (editing) {
      other.call({"PING"});
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  auto start = std::chrono::steady_clock::now();
  const int edits = 10;
  for (int i = 0; i < edits; ++i) {
    client.upload("carrier-a", person, line_a,
                  {make_card("e" + std::to_string(i), "Edit " + std::to_string(i))},
                  store::upload_mode::delta);
    // Longer than the link's idle read (20 ms) and its window's round trip,
    // so that the link is idle between two edits: its read times out.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  auto arrived = eventually([&] {
    return client.shared("carrier-b", person, line_b).size() ==
           static_cast<std::size_t>(edits) + 1;
  });
  auto trimmed = arrived && eventually([&] { return outbox_length("carrier-b") == 0; });
  editing = false;
  traffic.join();
  ASSERT_TRUE(arrived);
  ASSERT_TRUE(trimmed) << "what carrier-b acknowledged stays in the outbox";
  auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  // One trim per 100 ms at most, the first included. (The account's scripts
  // trim its history too, but not within an hour of its registration.)
  auto most = elapsed_ms / 100 + 1;
  EXPECT_LE(command_calls(redis, "xtrim") - before, most)
      << "carrier-a's Redis trimmed " << command_calls(redis, "xtrim") - before
      << " times in " << elapsed_ms << " ms for " << edits << " edits";
}

TEST_F(three_carriers, a_registration_after_data_exists_is_bootstrapped) {
  register_everywhere();
  client.upload("carrier-a", person, line_a, book(10, "Li"));
  ASSERT_TRUE(eventually(
      [&] { return client.shared("carrier-b", person, line_b).size() == 10; }));
  client.register_line("carrier-c", person, line_c, peers_of("carrier-c"));
  ASSERT_TRUE(
      eventually([&] { return client.counts("carrier-c", person, line_c).added == 10; }));
  // From now on carrier-c takes part: its upload reaches a and b.
  client.upload("carrier-c", person, line_c, {make_card("c1", "From C")},
                store::upload_mode::delta);
  ASSERT_TRUE(eventually([&] {
    return client.shared("carrier-a", person, line_a).count("c1") == 1 &&
           client.shared("carrier-b", person, line_b).count("c1") == 1;
  }));
}

TEST_F(three_carriers, two_lines_at_one_carrier_and_a_sibling_all_get_the_change) {
  register_everywhere();
  client.register_line("carrier-a", person, line_a2, peers_of("carrier-a"));
  client.upload("carrier-b", person, line_b, book(5, "Wang"));
  ASSERT_TRUE(eventually([&] {
    return client.counts("carrier-a", person, line_a).added == 5 &&
           client.counts("carrier-a", person, line_a2).added == 5;
  }));
}

TEST_F(three_carriers, concurrent_uploads_converge_everywhere) {
  register_everywhere();
  client.register_line("carrier-c", person, line_c, peers_of("carrier-c"));
  // Same uids edited on two carriers at once, plus cards only one side has.
  // A client is one actor: one per thread. It lives as long as the first:
  // a TLS client system torn down while another client system of the same
  // test process is connected left the other's requests unanswered (CAF 0.17).
  carrier_client second(d);
  std::thread other([&] { second.upload("carrier-b", person, line_b, book(30, "B")); });
  client.upload("carrier-a", person, line_a, book(30, "A"));
  other.join();
  auto converged = [&] {
    auto a = client.shared("carrier-a", person, line_a);
    return a.size() == 30 && a == client.shared("carrier-b", person, line_b) &&
           a == client.shared("carrier-c", person, line_c);
  };
  EXPECT_TRUE(eventually(converged));
}
