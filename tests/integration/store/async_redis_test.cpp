// The asynchronous Redis connection the gateway writes through: on a real
// redis-server, as carrierd's user, on an asio loop the test runs itself.

#include "core/error.hpp"
#include "store/async_redis.hpp"
#include "store/scripts.hpp"
#include "tests/support/paused_process.hpp"
#include "tests/support/redis_server.hpp"

#include <asio/io_context.hpp>
#include <caf/sec.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <string>
#include <vector>

namespace simsync::testing {
namespace {

using namespace std::chrono_literals;

/// Runs the loop until `done` holds or `limit` passes; false on the latter.
bool run_until(asio::io_context& loop, const std::function<bool()>& done,
               std::chrono::milliseconds limit = 10s) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    loop.restart();
    loop.run_for(5ms);
  }
  return true;
}

/// What one command was answered: its text (or integer as text), or its error.
struct answer {
  bool arrived = false;
  std::string text;
  caf::error error;
};

store::async_redis::handler keep(answer& a) {
  return [&a](caf::expected<store::reply_view> r) {
    a.arrived = true;
    if (!r)
      a.error = std::move(r.error());
    else if (r->is_integer())
      a.text = std::to_string(r->integer());
    else
      a.text = std::string(r->str());
  };
}

TEST(async_redis, commands_sent_together_are_answered_in_order) {
  redis_server server;
  asio::io_context loop;
  store::async_redis redis{loop, server.endpoint(), 5s};
  std::vector<answer> answers(500);
  for (auto& a : answers)
    redis.send({"INCR", "counter"}, keep(a));
  EXPECT_EQ(redis.waiting(), 500u);
  ASSERT_TRUE(run_until(loop, [&] { return answers.back().arrived; }));
  for (std::size_t i = 0; i < answers.size(); ++i) {
    ASSERT_FALSE(answers[i].error) << describe(answers[i].error);
    EXPECT_EQ(answers[i].text, std::to_string(i + 1));
  }
  EXPECT_EQ(redis.waiting(), 0u);
  EXPECT_EQ(redis.connections(), 1u);
}

TEST(async_redis, refused_credentials_are_an_error_naming_the_user_not_the_password) {
  redis_server server;
  auto where = server.endpoint();
  where.password = "not-the-password";
  asio::io_context loop;
  store::async_redis redis{loop, where, 5s};
  answer a;
  redis.send({"PING"}, keep(a));
  ASSERT_TRUE(run_until(loop, [&] { return a.arrived; }));
  ASSERT_EQ(a.error, ec::store_unavailable) << a.text;
  auto text = describe(a.error);
  EXPECT_NE(text.find("simsync"), std::string::npos) << text;
  EXPECT_EQ(text.find("not-the-password"), std::string::npos) << text;
}

TEST(async_redis, a_script_loads_its_library_when_the_server_lacks_it) {
  redis_server server;
  auto admin = server.connect();
  ASSERT_TRUE(admin.call({"FUNCTION", "FLUSH"}));
  asio::io_context loop;
  store::async_redis redis{loop, server.endpoint(), 5s};
  // An unknown line: the script runs and refuses it as any wrong token.
  answer first;
  answer second;
  store::run_script(redis, store::script::check_access,
                    {std::string(64, 'a'), "no-such-line", "no-proof"}, keep(first));
  store::run_script(redis, store::script::check_access,
                    {std::string(64, 'a'), "no-such-line", "no-proof"}, keep(second));
  ASSERT_TRUE(run_until(loop, [&] { return first.arrived && second.arrived; }));
  EXPECT_EQ(first.error, ec::bad_token) << describe(first.error);
  EXPECT_EQ(second.error, ec::bad_token) << describe(second.error);
  auto libraries = admin.call({"FUNCTION", "LIST", "LIBRARYNAME", "simsync"});
  ASSERT_TRUE(libraries);
  EXPECT_EQ(libraries->view().size(), 1u);
}

TEST(async_redis, a_stalled_server_times_out_and_the_next_command_reconnects) {
  redis_server server;
  asio::io_context loop;
  store::async_redis redis{loop, server.endpoint(), 300ms};
  answer warm;
  redis.send({"PING"}, keep(warm));
  ASSERT_TRUE(run_until(loop, [&] { return warm.arrived; }));
  ASSERT_FALSE(warm.error);

  answer stalled;
  answer behind;
  {
    paused_process paused{server.pid()};
    redis.send({"SET", "during-stall", "1"}, keep(stalled));
    redis.send({"PING"}, keep(behind));
    ASSERT_TRUE(run_until(
        loop, [&] { return stalled.arrived && behind.arrived; }, 5s));
  }
  EXPECT_EQ(stalled.error, caf::sec::request_timeout) << describe(stalled.error);
  EXPECT_EQ(behind.error, caf::sec::request_timeout) << describe(behind.error);

  answer after;
  redis.send({"GET", "during-stall"}, keep(after));
  ASSERT_TRUE(run_until(loop, [&] { return after.arrived; }));
  ASSERT_FALSE(after.error) << describe(after.error);
  EXPECT_EQ(redis.connections(), 2u);
}

TEST(async_redis, a_server_that_is_gone_is_an_error_until_it_is_back) {
  redis_server server;
  asio::io_context loop;
  store::async_redis redis{loop, server.endpoint(), 5s, 50ms};
  answer warm;
  redis.send({"SET", "kept", "1"}, keep(warm));
  ASSERT_TRUE(run_until(loop, [&] { return warm.arrived; }));
  ASSERT_FALSE(warm.error);

  server.stop(SIGKILL);
  answer lost;
  redis.send({"GET", "kept"}, keep(lost));
  ASSERT_TRUE(run_until(loop, [&] { return lost.arrived; }));
  EXPECT_EQ(lost.error, ec::store_unavailable) << describe(lost.error);

  server.start();
  // Each try waits for its answer; a refused connection is tried again.
  answer back;
  bool sent = false;
  ASSERT_TRUE(run_until(loop, [&] {
    if (back.arrived && !back.error)
      return true;
    if (sent && !back.arrived)
      return false;
    back = answer{};
    sent = true;
    redis.send({"PING"}, keep(back));
    return false;
  }));
  EXPECT_EQ(back.text, "PONG");
}

TEST(async_redis, what_waits_when_it_is_destroyed_fails) {
  redis_server server;
  asio::io_context loop;
  answer a;
  {
    paused_process paused{server.pid()};
    store::async_redis redis{loop, server.endpoint(), 5s};
    redis.send({"PING"}, keep(a));
    loop.restart();
    loop.run_for(50ms);
    EXPECT_FALSE(a.arrived);
  }
  EXPECT_TRUE(a.arrived);
  EXPECT_EQ(a.error, ec::store_unavailable) << describe(a.error);
}

} // namespace
} // namespace simsync::testing
