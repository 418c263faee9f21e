// The node actor on CAF's real scheduler over a real redis-server: it reports
// every actor's status, restarts a shard that died, and stops cleanly.
#include "actors/node.hpp"
#include "actors/node_systems.hpp"
#include "tests/integration/store/store_fixture.hpp"
#include "tests/support/test_pki.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

config::node_entry node_at(std::string id, config::host_port federation,
                           std::vector<int> shards) {
  config::node_entry n;
  n.id = std::move(id);
  n.federation = std::move(federation);
  n.shards = std::move(shards);
  return n;
}

config::node_config make_config(const redis_server& redis) {
  auto& pki = test_pki::shared();
  pki.ensure("carrier-a", {"a1"});
  pki.ensure("carrier-b", {"b1"});
  config::node_config cfg;
  cfg.carrier = "carrier-a";
  cfg.node = "a1";
  cfg.shards = 2;
  cfg.redis_address = redis.endpoint().to_string();
  cfg.redis_user = redis.endpoint().user;
  cfg.redis_password = redis.endpoint().password;
  cfg.federation = {"127.0.0.1", free_loopback_port()};
  cfg.nodes = {node_at("a1", cfg.federation, {0, 1})};
  cfg.federation_tls = {pki.federation_ca(), pki.federation_pem("carrier-a")};
  cfg.signing_key = file_text(pki.signing_key("carrier-a"));
  // A peer that never answers: its link must show as down, not block anything.
  config::peer_entry peer;
  peer.id = "carrier-b";
  peer.shards = 2;
  peer.nodes = {node_at("b1", {"127.0.0.1", free_loopback_port()}, {0, 1})};
  peer.public_key = file_text(pki.signing_pub("carrier-b"));
  cfg.peers = {peer};
  return cfg;
}

struct node_fixture : ::testing::Test {
  node_fixture()
      : cfg(make_config(redis)), sys_cfg(cfg, node_system::cluster), sys(sys_cfg),
        federation_cfg(cfg, node_system::federation), federation_sys(federation_cfg),
        links_cfg(cfg, node_system::links), links_sys(links_cfg), self(sys) {
    auto started = start_node({sys, federation_sys, links_sys}, cfg);
    if (!started)
      throw std::runtime_error(describe(started.error()));
    node = started->supervisor;
    router = started->router;
  }

  ~node_fixture() override { stop_node(sys, node); }

  std::vector<actor_status> status() {
    std::vector<actor_status> out;
    self->request(node, std::chrono::seconds{10}, atom::status_v)
        .receive([&](std::vector<actor_status>& s) { out = std::move(s); },
                 [&](caf::error& err) { ADD_FAILURE() << sys.render(err); });
    return out;
  }

  /// The node's shards as its router routes to them.
  node_shards shards() {
    node_shards out;
    self->request(router, std::chrono::seconds{10}, atom::shards_v)
        .receive([&](node_shards& s) { out = std::move(s); },
                 [&](caf::error& err) { ADD_FAILURE() << sys.render(err); });
    return out;
  }

  redis_server redis;
  config::node_config cfg;
  node_system_config sys_cfg;
  caf::actor_system sys;
  node_system_config federation_cfg;
  caf::actor_system federation_sys;
  node_system_config links_cfg;
  caf::actor_system links_sys;
  caf::scoped_actor self;
  node_actor node;
  router_actor router;
};

const actor_status* find(const std::vector<actor_status>& all, const std::string& name) {
  for (const auto& s : all)
    if (s.name == name)
      return &s;
  return nullptr;
}

} // namespace

TEST_F(node_fixture, reports_every_actor) {
  auto all = status();
  // router, federation endpoint and its applier, user directory, two shards,
  // one link
  ASSERT_EQ(all.size(), 7u);
  ASSERT_NE(find(all, "router"), nullptr);
  ASSERT_NE(find(all, "federation"), nullptr);
  ASSERT_NE(find(all, "federation_applier"), nullptr);
  ASSERT_NE(find(all, "user_directory"), nullptr);
  EXPECT_EQ(find(all, "user_directory")->kind, "user_directory");
  ASSERT_NE(find(all, "account_shard/0"), nullptr);
  ASSERT_NE(find(all, "account_shard/1"), nullptr);
  auto link = find(all, "peer_link/carrier-b");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->kind, "peer_link");
  EXPECT_EQ(link->peer, "carrier-b");
}

TEST_F(node_fixture, an_unreachable_peer_shows_as_down_with_its_reason) {
  // A registration asks carrier-b, which is not running, about the person.
  auto known = shards();
  store::register_request req{person, "+8613800138000", "898601", "h", "sealed",
                              1,      {"carrier-b"},    "m"};
  auto owner = config::shard_of(person, 2) == known.indices[0] ? 0 : 1;
  self->request(known.handles[owner], std::chrono::seconds{10}, atom::register_line_v,
                req)
      .receive([](const store::register_result&) {},
               [&](caf::error& err) { ADD_FAILURE() << sys.render(err); });
  actor_status link;
  for (int i = 0; i < 100; ++i) {
    auto all = status();
    link = *find(all, "peer_link/carrier-b");
    if (link.link_state == "down" && link.outbox == 1)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  EXPECT_EQ(link.link_state, "down");
  EXPECT_EQ(link.outbox, 1u); // the ask waits, nothing is lost
  EXPECT_NE(link.last_error.find("carrier-b"), std::string::npos) << link.last_error;
  EXPECT_TRUE(stop_node(sys, node));
}

TEST_F(node_fixture, a_dead_shard_is_restarted_and_takes_work_again) {
  auto before = shards();
  ASSERT_EQ(before.indices.size(), 2u);
  auto victim = before.handles[before.indices[0] == 1 ? 0 : 1];
  self->send_exit(victim, caf::exit_reason::kill);

  bool restarted = false;
  for (int i = 0; i < 100 && !restarted; ++i) {
    auto all = status();
    auto s = find(all, "account_shard/1");
    restarted = s != nullptr && s->restarts == 1 && !s->last_error.empty();
    if (!restarted)
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  ASSERT_TRUE(restarted);

  // The endpoint routes to the new shard, which works.
  auto after = shards();
  auto fresh = after.handles[after.indices[0] == 1 ? 0 : 1];
  EXPECT_NE(fresh.address(), victim.address());
  store::register_request req{person, "+8613800138000", "898601", "h", "sealed", 1, {},
                              "m"};
  self->request(fresh, std::chrono::seconds{10}, atom::register_line_v, req)
      .receive([](const store::register_result& r) { EXPECT_TRUE(r.account_created); },
               [&](caf::error& err) { ADD_FAILURE() << sys.render(err); });
  EXPECT_TRUE(stop_node(sys, node));
}
