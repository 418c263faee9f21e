// One owner per msisdn in a carrier of two nodes, whichever node holds the
// accounts: real carrierd and redis-server processes, driven over HTTP.
#include "tests/integration/gateway/gateway_fixture.hpp"

#include "config/node_config.hpp"
#include "core/identity.hpp"
#include "core/stamp.hpp"

using namespace simsync;
using namespace simsync::testing;

namespace {

/// The key tests/support writes for every deployment.
const std::string federation_key = "simsync-test-federation-key-0123456789";

/// Person i's idcode, as the gateway computes it from register's user info.
std::string idcode_of(int person) {
  auto user =
      core::normalize_user_info("Person " + std::to_string(person), id_number_of(person));
  return core::idcode(federation_key, *user.info);
}

struct line_claim : shared_deployment<line_claim> {
  static deployment* make() {
    deployment::options opts;
    opts.nodes = {{"carrier-a", 2}}; // shard s on node s % 2
    return new deployment({"carrier-a"}, opts);
  }
  static std::vector<std::string> carriers() { return {"carrier-a"}; }
  static void SetUpTestSuite() {
    d = make();
    // Two persons whose accounts live on different nodes.
    for (int p = 1; p < 50 && second == 0; ++p) {
      int node = config::shard_of(idcode_of(p), d->shards()) % 2;
      if (first == 0 && node == 0)
        first = p;
      else if (first != 0 && node == 1)
        second = p;
    }
    // Node 0's gateway learns node 1's shards shortly after both start.
    gateway_client http{*d};
    ASSERT_TRUE(eventually([&] {
      return http.register_raw("carrier-a", {{"msisdn", "+8613800000999"},
                                             {"iccid", "89860012345678901234"},
                                             {"name", "Person " + std::to_string(second)},
                                             {"id_number", id_number_of(second)}})
                 .status == 201;
    }));
  }
  /// The Redis of the node holding msisdn's claim.
  store::redis_client claim_redis(const std::string& msisdn) {
    return d->redis("carrier-a", config::shard_of_msisdn(msisdn, d->shards()) % 2)
        .connect();
  }
  /// Registers `msisdn` for person `person` through node `node`'s gateway.
  http_answer register_as(int person, const std::string& msisdn, int node = 0) {
    nlohmann::json body{{"msisdn", msisdn},
                        {"iccid", "89860012345678901234"},
                        {"name", "Person " + std::to_string(person)},
                        {"id_number", id_number_of(person)}};
    return http.send("carrier-a", "POST", "/v1/register", "", body.dump(),
                     "application/json", {}, node);
  }
  static inline int first = 0;
  static inline int second = 0;
};

} // namespace

TEST_F(line_claim, the_two_persons_accounts_live_on_different_nodes) {
  ASSERT_NE(first, 0);
  ASSERT_NE(second, 0);
  EXPECT_NE(config::shard_of(idcode_of(first), d->shards()) % 2,
            config::shard_of(idcode_of(second), d->shards()) % 2);
}

TEST_F(line_claim, a_second_person_cannot_register_a_taken_msisdn_on_another_node) {
  const std::string msisdn = "+8613800000101";
  auto owner = http.register_line("carrier-a", msisdn, first);
  ASSERT_FALSE(owner.token.empty());
  for (int node : {0, 1}) {
    auto taken = register_as(second, msisdn, node);
    EXPECT_EQ(taken.status, 409) << "through node " << node << ": " << taken.body;
    EXPECT_EQ(taken.json.value("type", ""), "urn:simsync:problem:line-taken");
  }
  // The first keeps its line: its token still opens it.
  EXPECT_EQ(http.push(owner, card("c1", "Kept"), "", "POST").status, 200);
  EXPECT_EQ(http.contacts(owner).status, 200);
  EXPECT_EQ(http.update(owner).status, 200);
}

TEST_F(line_claim, after_the_owner_removes_the_line_another_person_may_register_it) {
  const std::string msisdn = "+8613800000102";
  auto owner = http.register_line("carrier-a", msisdn, first);
  ASSERT_EQ(register_as(second, msisdn).status, 409);
  auto removed =
      http.send("carrier-a", "DELETE", gateway_client::lines(owner), owner.token);
  ASSERT_EQ(removed.status, 200) << removed;
  auto next = http.register_line("carrier-a", msisdn, second);
  EXPECT_FALSE(next.token.empty());
  EXPECT_EQ(next.idcode, idcode_of(second));
  EXPECT_EQ(http.update(next).status, 200);
  EXPECT_EQ(http.update(owner).status, 403); // the old token opens nothing
  // And now the first person is the one refused.
  EXPECT_EQ(register_as(first, msisdn).status, 409);
}

TEST_F(line_claim, registering_again_by_the_owner_works) {
  const std::string msisdn = "+8613800000103";
  auto one = http.register_line("carrier-a", msisdn, first);
  auto two = register_as(first, msisdn, 1);
  EXPECT_EQ(two.status, 200) << two.body; // nothing new: the token is reissued
  EXPECT_NE(two.json.value("token", ""), one.token);
}

TEST_F(line_claim, a_claim_left_without_a_line_does_not_lock_out_its_idcode) {
  // As if the gateway crashed between claiming and registering.
  const std::string msisdn = "+8613800000104";
  auto redis = claim_redis(msisdn);
  ASSERT_TRUE(redis.call({"HSET", "claim:" + msisdn, "id", idcode_of(first), "since_ms",
                          std::to_string(core::unix_now_ms())}));
  EXPECT_EQ(register_as(second, msisdn).status, 409); // fresh: it may be on its way
  auto owner = register_as(first, msisdn);
  EXPECT_EQ(owner.status, 201) << owner.body;
}

TEST_F(line_claim, an_old_claim_without_a_line_is_taken_over) {
  const std::string msisdn = "+8613800000105";
  auto redis = claim_redis(msisdn);
  ASSERT_TRUE(
      redis.call({"HSET", "claim:" + msisdn, "id", idcode_of(first), "since_ms", "1"}));
  auto taker = register_as(second, msisdn);
  EXPECT_EQ(taker.status, 201) << taker.body;
  auto owner = redis.call({"HGET", "claim:" + msisdn, "id"});
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->view().str(), idcode_of(second));
  // An old claim whose owner does hold the line is kept.
  auto r = redis.call({"HSET", "claim:" + msisdn, "since_ms", "1"});
  ASSERT_TRUE(r);
  EXPECT_EQ(register_as(first, msisdn).status, 409);
}
