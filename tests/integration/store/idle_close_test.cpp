// Redis may close a client's connection while nothing is asked of it: ACL
// LOAD (a password rotation), CLIENT KILL, a timeout. The next call opens a
// new connection first instead of failing: nothing was in flight, so
// nothing can be lost or done twice. A connection that breaks during a call
// is still an error (and the client stays broken until its owner reconnects).

#include "tests/support/redis_server.hpp"

#include <gtest/gtest.h>

namespace simsync::testing {
namespace {

long long clients_named(store::redis_client& admin, const std::string& name) {
  auto list = admin.call({"CLIENT", "LIST"});
  std::string text(list->view().str());
  long long n = 0;
  for (auto at = text.find("name=" + name + " "); at != std::string::npos;
       at = text.find("name=" + name + " ", at + 1))
    ++n;
  return n;
}

TEST(redis_idle_close, a_connection_closed_while_idle_is_opened_again) {
  redis_server server;
  auto client = store::redis_client::connect(server.endpoint());
  ASSERT_TRUE(client) << describe(client.error());
  ASSERT_TRUE(client->call({"CLIENT", "SETNAME", "idle-one"}));
  auto admin = server.connect();
  ASSERT_EQ(clients_named(admin, "idle-one"), 1);

  auto killed = admin.call({"CLIENT", "KILL", "USER", "simsync"});
  ASSERT_TRUE(killed);
  EXPECT_EQ(killed->view().integer(), 1);
  ASSERT_EQ(clients_named(admin, "idle-one"), 0);

  auto set = client->call({"SET", "after-kill", "1"});
  ASSERT_TRUE(set) << describe(set.error());
  EXPECT_EQ(set->view().str(), "OK");
  EXPECT_TRUE(client->healthy());
  EXPECT_EQ(admin.call({"GET", "after-kill"})->view().str(), "1");
  // A new connection (the old one had a name), authenticated: SET ran.
  EXPECT_EQ(clients_named(admin, "idle-one"), 0);
}

TEST(redis_idle_close, a_server_that_is_gone_is_still_an_error) {
  auto server = std::make_unique<redis_server>();
  auto client = store::redis_client::connect(server->endpoint());
  ASSERT_TRUE(client) << describe(client.error());
  ASSERT_TRUE(client->call({"PING"}));
  server.reset(); // stops redis-server
  auto r = client->call({"PING"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::store_unavailable);
  EXPECT_FALSE(client->healthy());
}

} // namespace
} // namespace simsync::testing
