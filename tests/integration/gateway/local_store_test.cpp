// The gateway writes the accounts of its own node straight to the node's
// Redis from its I/O loop (net/local_store.hpp). What a shard actor answered
// before, the loop answers now: a stalled Redis is a 504 problem after the
// gateway's time limit, not a request left hanging, and the writes that
// follow once it is back are stored and replicated. The loop is not held up
// meanwhile: what needs no Redis is answered at once.

#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/integration/node/admin_counts.hpp"
#include "tests/support/paused_process.hpp"

#include <chrono>
#include <future>
#include <map>
#include <thread>

using namespace simsync::testing;

TEST(local_store, a_stalled_redis_is_a_504_and_the_next_write_is_stored) {
  deployment d{{"carrier-a", "carrier-b"}};
  gateway_client http{d};
  auto a = http.register_line("carrier-a", "+8613800000001", 1);
  auto b = http.register_line("carrier-b", "+8618600000001", 1);
  ASSERT_EQ(http.push(a, card("before", "Before"), "", "POST").status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; }));

  http_answer stalled;
  {
    paused_process redis_a{d.redis("carrier-a").pid()};
    auto waiting = std::async(std::launch::async, [&] {
      return http.push(a, card("during", "During"), "", "POST");
    });
    // While that write waits on Redis, a request without a token is refused:
    // the loop still runs. It is answered before the write is.
    auto unauthorized =
        http.send("carrier-a", "POST", "/v1/lines/" + a.msisdn + "/update", "");
    EXPECT_EQ(unauthorized.status, 401) << unauthorized;
    EXPECT_EQ(waiting.wait_for(std::chrono::seconds{0}), std::future_status::timeout);
    stalled = waiting.get();
  }
  // The gateway's own limit answered (a problem), not the HTTP server's
  // closing the connection.
  EXPECT_EQ(stalled.status, 504) << stalled;
  EXPECT_TRUE(stalled.is_problem()) << stalled;

  // Redis is back: the gateway connects again and the next write goes through.
  http_answer after;
  ASSERT_TRUE(eventually([&] {
    after = http.push(a, card("after", "After"), "", "POST");
    return after.status == 200;
  })) << after;
  // What the stalled request asked may or may not have been done (it was
  // not acknowledged); what was acknowledged reaches the sibling. So two
  // pending changes may be "before" and "during": wait for "after" itself.
  http_answer page;
  std::string cards;
  ASSERT_TRUE(eventually([&] {
    page = http.pending(b);
    if (page.status != 200)
      return false;
    cards = page.json.value("cards", "");
    return cards.find("UID:after") != std::string::npos;
  })) << page;
  ASSERT_EQ(page.status, 200) << page;
  EXPECT_NE(cards.find("UID:before"), std::string::npos) << cards;
  EXPECT_NE(cards.find("UID:after"), std::string::npos) << cards;
}

TEST(local_store, update_pending_and_ack_of_this_nodes_accounts_take_the_direct_path) {
  // The direct path is taken only when a request's arguments match one of
  // the local store's calls; otherwise the shard actor answers, correctly
  // but slower, and nothing else would show it. The counts show it.
  deployment d{{"carrier-a", "carrier-b"}};
  gateway_client http{d};
  auto a = http.register_line("carrier-a", "+8613800000002", 2);
  auto b = http.register_line("carrier-b", "+8618600000002", 2);
  ASSERT_EQ(http.push(a, card("direct", "Direct")).status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; }));
  auto shard =
      "account_shard/" + std::to_string(simsync::config::shard_of(b.idcode, d.shards()));
  // Quiet: replication has reached b's shard; the snapshot stops moving.
  auto before = settled_processed(d, "carrier-b");
  ASSERT_FALSE(before.empty()) << "carrier-b's counts never settled";
  auto update = http.update(b);
  ASSERT_EQ(update.status, 200) << update;
  auto page = http.pending(b);
  ASSERT_EQ(page.status, 200) << page;
  auto ack = http.ack(b, page.json.value("cursor", ""), "apply");
  ASSERT_EQ(ack.status, 200) << ack;
  std::map<std::string, int> after;
  ASSERT_TRUE(eventually([&] {
    after = processed_by_actor(d, "carrier-b");
    return after["gateway/local_store"] >= before["gateway/local_store"] + 3;
  })) << "the local store made "
      << after["gateway/local_store"] - before["gateway/local_store"]
      << " calls for update, pending and ack; " << shard << " handled "
      << after[shard] - before[shard] << " messages";
  EXPECT_EQ(after[shard], before[shard]) << shard << " was asked instead";
}
