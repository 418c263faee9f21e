// Every node's Redis requires a credential: no command runs before AUTH, a
// wrong password is refused with a message that names the user and address
// but never the password, and carrierd's user (simsync) may not run the
// dangerous commands. That every store script runs as simsync is what the
// other store tests prove (store_fixture connects as simsync).

#include "tests/support/redis_server.hpp"

#include <gtest/gtest.h>

#include <string>

namespace simsync::testing {
namespace {

TEST(redis_auth, a_client_without_credentials_runs_nothing) {
  redis_server server;
  auto nobody = server.endpoint();
  nobody.user.clear();
  nobody.password.clear();
  auto client = store::redis_client::connect(nobody);
  ASSERT_TRUE(client) << describe(client.error()); // connecting is not a command
  for (const store::command& cmd :
       {store::command{"PING"}, store::command{"SET", "k", "v"},
        store::command{"GET", "k"}, store::command{"KEYS", "*"}}) {
    auto r = client->call(cmd);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->view().is_error());
    EXPECT_EQ(r->view().str().substr(0, 6), "NOAUTH") << r->view().str();
  }
  auto admin = server.connect();
  EXPECT_EQ(admin.call({"EXISTS", "k"})->view().integer(), 0); // SET never ran
}

TEST(redis_auth, a_wrong_password_is_refused_without_showing_it) {
  redis_server server;
  auto wrong = server.endpoint();
  wrong.password = "wrong-password-never-printed";
  auto client = store::redis_client::connect(wrong);
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error(), ec::store_unavailable);
  auto message = describe(client.error());
  EXPECT_NE(message.find("Redis at " + server.endpoint().to_string() +
                         " refused the credentials of user simsync"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find(wrong.password), std::string::npos) << message;
  EXPECT_EQ(message.find(server.endpoint().password), std::string::npos);

  // So is an unknown user, and the default user is off.
  auto stranger = server.endpoint();
  stranger.user = "stranger";
  EXPECT_FALSE(store::redis_client::connect(stranger));
  auto as_default = server.endpoint();
  as_default.user = "default";
  EXPECT_FALSE(store::redis_client::connect(as_default));

  // The endpoint's text is where, never who.
  EXPECT_EQ(server.endpoint().to_string(),
            "127.0.0.1:" + std::to_string(server.endpoint().port));
}

TEST(redis_auth, carrierds_user_may_not_run_the_dangerous_commands) {
  redis_server server;
  auto carrierd = server.connect_as_carrierd();
  auto admin = server.connect();
  ASSERT_TRUE(carrierd.call({"SET", "k", "v"}));
  for (const store::command& cmd :
       {store::command{"FLUSHALL"}, store::command{"FLUSHDB"},
        store::command{"CONFIG", "SET", "appendonly", "no"},
        store::command{"CONFIG", "GET", "*"}, store::command{"KEYS", "*"},
        store::command{"SHUTDOWN", "NOSAVE"}, store::command{"DEBUG", "SLEEP", "0"},
        store::command{"MONITOR"}, store::command{"ACL", "LIST"}}) {
    auto r = carrierd.call(cmd);
    ASSERT_TRUE(r) << cmd[0];
    EXPECT_TRUE(r->view().is_error()) << cmd[0];
    if (cmd[0] != "DEBUG") { // else refused anyway: enable-debug-command is off
      EXPECT_EQ(r->view().str().substr(0, 6), "NOPERM")
          << cmd[0] << ": " << r->view().str();
    }
    // The ACL itself refuses each (ACL DRYRUN answers OK for an allowed one).
    store::command dry{"ACL", "DRYRUN", redis_server::user};
    dry.insert(dry.end(), cmd.begin(), cmd.end());
    auto verdict = admin.call(dry);
    ASSERT_TRUE(verdict);
    EXPECT_NE(verdict->view().str(), "OK") << cmd[0];
  }
  // What carrierd runs besides its scripts: PING, INFO, DBSIZE.
  EXPECT_EQ(carrierd.call({"PING"})->view().str(), "PONG");
  EXPECT_FALSE(carrierd.call({"INFO", "memory"})->view().is_error());
  EXPECT_EQ(carrierd.call({"DBSIZE"})->view().integer(), 1);
  // The server still runs and holds the key.
  EXPECT_EQ(admin.call({"EXISTS", "k"})->view().integer(), 1);
}

} // namespace
} // namespace simsync::testing
