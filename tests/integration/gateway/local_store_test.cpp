// The gateway writes the accounts of its own node straight to the node's
// Redis from its I/O loop (net/local_store.hpp). What a shard actor answered
// before, the loop answers now: a stalled Redis is a 504 problem after the
// gateway's time limit, not a request left hanging, and the writes that
// follow once it is back are stored and replicated. The loop is not held up
// meanwhile: what needs no Redis is answered at once.

#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/paused_process.hpp"

#include <chrono>
#include <future>

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
  // not acknowledged); what was acknowledged reaches the sibling.
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) >= 2; }));
  auto page = http.pending(b);
  ASSERT_EQ(page.status, 200) << page;
  auto cards = page.json.value("cards", "");
  EXPECT_NE(cards.find("UID:before"), std::string::npos) << cards;
  EXPECT_NE(cards.find("UID:after"), std::string::npos) << cards;
}
