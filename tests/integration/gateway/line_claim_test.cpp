// One owner per msisdn in a carrier of two nodes, whichever node holds the
// accounts: real carrierd and redis-server processes, driven over HTTP.
#include "tests/integration/gateway/gateway_fixture.hpp"

#include "config/node_config.hpp"
#include "core/identity.hpp"
#include "core/stamp.hpp"

using namespace simsync;
using namespace simsync::testing;

namespace {

struct line_claim : shared_deployment<line_claim> {
  /// Person i's idcode, as the gateway computes it from register's user info.
  static std::string idcode_of(int person) {
    auto user = core::normalize_user_info("Person " + std::to_string(person),
                                          id_number_of(person));
    return core::idcode(d->federation_key(), *user.info);
  }
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
    // Each node's gateway and admin port learn the other node's shards shortly
    // after both start: wait until a number whose claim lives on the other
    // node passes through each (a line id is a keyed hash, so which numbers
    // those are changes with the deployment's keys).
    gateway_client http{*d};
    for (int node : {0, 1}) {
      auto probe = number_claimed_on(1 - node);
      auto record = nlohmann::json{{"iccid", gateway_client::default_iccid},
                                   {"name", "Person " + std::to_string(second)},
                                   {"id_number", id_number_of(second)}};
      ASSERT_TRUE(eventually([&] {
        auto a = http.admin("carrier-a", "PUT", "/admin/subscribers/" + probe,
                            record.dump(), "application/json", std::nullopt, node);
        return a.status == 201 || a.status == 200;
      }));
      ASSERT_TRUE(eventually([&] {
        return http.send("carrier-a", "POST", "/v1/register", "",
                         nlohmann::json{{"msisdn", probe},
                                        {"iccid", gateway_client::default_iccid}}
                             .dump(),
                         "application/json", {}, node)
                   .status == 202;
      }));
    }
  }
  /// A number (+86138000009xx) whose claim lives on node `node`.
  static std::string number_claimed_on(int node) {
    return number_on_node(*d, "carrier-a", "+86138000009", node);
  }
  /// The Redis of the node holding msisdn's claim.
  store::redis_client claim_redis(const std::string& msisdn) {
    return d->redis("carrier-a", config::shard_of_line(line_of(msisdn), d->shards()) % 2)
        .connect();
  }
  /// The claim's key: it names the line by its line id.
  std::string claim_key(const std::string& msisdn) { return "claim:" + line_of(msisdn); }
  /// The line id carrier-a's store names `msisdn` by.
  std::string line_of(const std::string& msisdn) {
    return d->line_id("carrier-a", msisdn);
  }
  /// Registers `msisdn`, as its subscriber does, through node `node`'s gateway.
  http_answer register_through(const std::string& msisdn, int node = 0) {
    auto sent = http.send(
        "carrier-a", "POST", "/v1/register", "",
        nlohmann::json{{"msisdn", msisdn}, {"iccid", gateway_client::default_iccid}}
            .dump(),
        "application/json", {}, node);
    EXPECT_EQ(sent.status, 202) << sent;
    return http.send(
        "carrier-a", "POST", "/v1/register/verify", "",
        nlohmann::json{{"msisdn", msisdn}, {"code", d->last_code("carrier-a", msisdn)}}
            .dump(),
        "application/json", {}, node);
  }
  /// Makes `msisdn` person `person`'s subscription, then registers it
  /// through node `node`'s gateway.
  http_answer register_as(int person, const std::string& msisdn, int node = 0) {
    http.add_subscriber("carrier-a", msisdn, person);
    return register_through(msisdn, node);
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

TEST_F(line_claim, a_recycled_number_passes_to_its_new_subscriber_on_either_node) {
  for (int node : {0, 1}) {
    const std::string msisdn = "+861380000010" + std::to_string(node);
    auto owner = http.register_line("carrier-a", msisdn, first);
    ASSERT_EQ(http.push(owner, card("c1", "Kept"), "", "POST").status, 200);
    // The carrier gives the number to another person: the line is retired.
    auto recycled = http.add_subscriber("carrier-a", msisdn, second);
    EXPECT_TRUE(recycled.json.value("line_retired", false)) << recycled;
    EXPECT_EQ(http.update(owner).status, 401);
    auto next = register_through(msisdn, node);
    EXPECT_EQ(next.status, 201) << "through node " << node << ": " << next.body;
    EXPECT_EQ(next.json.value("idcode", ""), idcode_of(second));
    line fresh{"carrier-a", msisdn, next.json.value("token", ""), idcode_of(second)};
    // A fresh line: nothing of the previous owner's.
    EXPECT_EQ(http.contacts(fresh).body.find("Kept"), std::string::npos);
  }
}

TEST_F(line_claim, after_the_owner_removes_the_line_it_registers_afresh) {
  const std::string msisdn = "+8613800000102";
  auto owner = http.register_line("carrier-a", msisdn, first);
  auto removed =
      http.send("carrier-a", "DELETE", gateway_client::lines(owner), owner.token);
  ASSERT_EQ(removed.status, 200) << removed;
  EXPECT_EQ(http.update(owner).status, 401); // the old token opens nothing
  auto next = register_through(msisdn, 1);
  EXPECT_EQ(next.status, 201) << next.body;
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
  http.add_subscriber("carrier-a", msisdn, first);
  auto redis = claim_redis(msisdn);
  ASSERT_TRUE(redis.call({"HSET", claim_key(msisdn), "id", idcode_of(first), "since_ms",
                          std::to_string(core::unix_now_ms())}));
  auto owner = register_through(msisdn);
  EXPECT_EQ(owner.status, 201) << owner.body;
}

TEST_F(line_claim, a_fresh_claim_of_another_account_holds_until_it_is_old) {
  const std::string msisdn = "+8613800000105";
  http.add_subscriber("carrier-a", msisdn, second);
  auto redis = claim_redis(msisdn);
  // A registration of another account on its way (fresh claim): refused.
  ASSERT_TRUE(redis.call({"HSET", claim_key(msisdn), "id", idcode_of(first), "since_ms",
                          std::to_string(core::unix_now_ms())}));
  EXPECT_EQ(register_through(msisdn).status, 409);
  // The same claim, old and without a line: taken over.
  ASSERT_TRUE(redis.call({"HSET", claim_key(msisdn), "since_ms", "1"}));
  auto taker = register_through(msisdn);
  EXPECT_EQ(taker.status, 201) << taker.body;
  auto holder = redis.call({"HGET", claim_key(msisdn), "id"});
  ASSERT_TRUE(holder);
  EXPECT_EQ(holder->view().str(), idcode_of(second));
}
