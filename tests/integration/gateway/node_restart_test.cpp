// A carrier of two nodes whose second node restarts: the first node routes to
// the restarted node's shards again within seconds, through its terminal
// gateway and its admin port alike. Found by tools/chaos: after node 1
// restarted (killed or stopped), node 0 answered 504 for every account on
// node 1 until node 0 was restarted too.
#include "tests/integration/gateway/gateway_fixture.hpp"

#include <csignal>

using namespace simsync::testing;

namespace {

struct node_restart : ::testing::TestWithParam<int> {};

} // namespace

TEST_P(node_restart, the_other_node_routes_to_the_restarted_node_again) {
  deployment::options opts;
  opts.nodes = {{"carrier-a", 2}};
  deployment d{{"carrier-a", "carrier-b"}, opts};
  gateway_client http{d}; // node 0's gateway and admin port
  const auto on_node_1 = number_on_node(d, "carrier-a", "+86138000003", 1);
  nlohmann::json record{{"iccid", gateway_client::default_iccid},
                        {"name", "Person 98"},
                        {"id_number", id_number_of(98)}};
  http_answer last;
  auto admin_reaches_node_1 = [&] {
    last =
        http.admin("carrier-a", "PUT", "/admin/subscribers/" + on_node_1, record.dump());
    return last.status == 200 || last.status == 201;
  };
  // Node 0 learns node 1's shards shortly after both start.
  ASSERT_TRUE(eventually(admin_reaches_node_1)) << last;
  line a;
  for (int person = 10; person < 40 && a.idcode.empty(); ++person) {
    auto candidate =
        http.register_line("carrier-a", "+86138000002" + std::to_string(person), person);
    if (simsync::config::shard_of(candidate.idcode, d.shards()) % 2 == 1)
      a = candidate;
  }
  ASSERT_FALSE(a.idcode.empty()) << "no person's account landed on node 1";
  ASSERT_EQ(http.push(a, card("r-0", "Before"), "", "POST").status, 200);

  d.stop_node("carrier-a", 1, GetParam());
  d.start_node("carrier-a", 1);

  EXPECT_TRUE(eventually(
      [&] {
        last = http.push(a, card("r-1", "After"), "", "POST");
        return last.status == 200;
      },
      std::chrono::seconds{20}))
      << "node 0's gateway: " << last;
  // The admin port keeps a shard directory of its own.
  EXPECT_TRUE(eventually(admin_reaches_node_1, std::chrono::seconds{20}))
      << "node 0's admin port: " << last;
}

INSTANTIATE_TEST_SUITE_P(killed_or_stopped, node_restart,
                         ::testing::Values(SIGKILL, SIGTERM));
