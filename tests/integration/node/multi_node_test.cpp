// A carrier of two nodes, each with its own redis-server: accounts live on
// the node that owns their shard, and reach it through CAF remote actors
// from the other node (the gateway's view) and from peer carriers.
#include "tests/integration/node/node_fixture.hpp"

#include <csignal>

using namespace simsync;
using namespace simsync::testing;

namespace {

// Shard 1 of 4: owned by carrier-a's second node (shards 1 and 3).
const std::string on_second_node = "00000001" + std::string(56, 'c');
const std::string line_a = "+8613800138000";
const std::string line_b = "+8618600186000";

struct two_node_carrier : ::testing::Test {
  deployment d{{"carrier-a", "carrier-b"}, {4, {{"carrier-a", 2}}}};
  carrier_client client{d}; // talks to carrier-a's first node only
};

long long keys_in(redis_server& redis, const std::string& key) {
  auto client = redis.connect();
  return client.call({"EXISTS", key})->view().integer();
}

} // namespace

TEST_F(two_node_carrier, an_account_lives_on_the_node_owning_its_shard) {
  client.register_line("carrier-a", on_second_node, line_a, {"carrier-b"});
  client.register_line("carrier-b", on_second_node, line_b, {"carrier-a"});
  client.upload("carrier-a", on_second_node, line_a,
                {make_card("u1", "Li"), make_card("u2", "Wang")});
  EXPECT_EQ(keys_in(d.redis("carrier-a", 1), "shared:{" + on_second_node + "}"), 1);
  EXPECT_EQ(keys_in(d.redis("carrier-a", 0), "shared:{" + on_second_node + "}"), 0);
  // Replication both ways goes to and from the second node.
  ASSERT_TRUE(eventually(
      [&] { return client.counts("carrier-b", on_second_node, line_b).added == 2; }));
  client.upload("carrier-b", on_second_node, line_b, {make_card("u3", "Zhao")},
                store::upload_mode::delta);
  ASSERT_TRUE(eventually(
      [&] { return client.counts("carrier-a", on_second_node, line_a).added == 1; }));
}

TEST_F(two_node_carrier, a_restarted_node_is_joined_again) {
  client.register_line("carrier-a", on_second_node, line_a, {});
  d.stop_node("carrier-a", 1, SIGKILL);
  d.start_node("carrier-a", 1);
  // A new client, as a gateway after a restart: the first one routed to the
  // node that went away through the other node, and CAF 0.17 over TLS left
  // that client's later requests to the other node unanswered.
  carrier_client fresh{d};
  auto r = fresh.upload("carrier-a", on_second_node, line_a, {make_card("u1", "Li")});
  EXPECT_EQ(r.added, 1u);
}
