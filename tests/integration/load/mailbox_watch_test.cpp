// load/mailbox_watch against a real redis-server: keyspace notifications of
// mailbox writes resolve exactly the watched changes, and the server's
// notify-keyspace-events setting comes back afterwards.

#include "load/mailbox_watch.hpp"
#include "tests/support/redis_server.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>

namespace {

using namespace simsync::load;

struct watch_fixture : ::testing::Test {
  simsync::testing::redis_server redis;
  simsync::store::redis_client client = redis.connect();
  deployment d;
  http_driver http{4};
  person p;

  watch_fixture() {
    d.carriers.push_back(
        carrier_info{"carrier-b", "http://127.0.0.1:1", {}, {}, {}, "", "", {}, {}, ""});
    // The operator's login (CONFIG SET, PSUBSCRIBE): the server's admin.
    auto password_file = redis.dir() + "/operator.password";
    std::ofstream(password_file) << redis.admin_endpoint().password << "\n";
    d.carriers[0].redis.push_back(redis.endpoint().to_string());
    d.carriers[0].redis_logins.push_back({redis.admin_endpoint().user, password_file});
    // Mailbox keys name lines by line id: the watch wants the carrier's keyring.
    d.carriers[0].seal_key_file = redis.dir() + "/carrier-b.seal.key";
    std::ofstream(d.carriers[0].seal_key_file) << std::string(64, 'a') << "\n";
    p.idcode = "0123abcd";
    p.lines.push_back(
        line{"carrier-b", "http://127.0.0.1:1", "+8610000000001", "", "line-id-1", ""});
    p.lines.push_back(
        line{"carrier-b", "http://127.0.0.1:1", "+8610000000002", "", "line-id-2", ""});
  }

  /// Gives a write that must not resolve anything time to arrive.
  void settle() {
    run_until([] { return false; }, std::chrono::milliseconds{300});
  }

  std::string events() {
    auto r = client.call({"CONFIG", "GET", "notify-keyspace-events"});
    EXPECT_TRUE(r);
    return std::string((*r)[1].str());
  }

  void hset(const line& l, std::vector<std::string> fields) {
    auto key = pending_key(p, l);
    simsync::store::command cmd{"HSET", key};
    for (const auto& f : fields) {
      cmd.push_back(f);
      cmd.push_back("1:record");
    }
    ASSERT_TRUE(client.call(cmd));
  }

  /// Polls until `done` or `limit` passes.
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::seconds{2}) {
    auto deadline = clock::now() + limit;
    while (!done() && clock::now() < deadline)
      http.poll(std::chrono::milliseconds{5});
    return done();
  }
};

TEST_F(watch_fixture, turns_keyspace_events_on_for_the_run_and_restores_them) {
  ASSERT_TRUE(client.call({"CONFIG", "SET", "notify-keyspace-events", "Ex"}));
  {
    mailbox_watch watch(d, http, std::chrono::milliseconds{10}, true);
    EXPECT_TRUE(watch.uses_redis());
    EXPECT_EQ(watch.resolution_ms(), 0.0);
    auto on = events();
    EXPECT_NE(on.find('K'), std::string::npos) << on;
    EXPECT_NE(on.find('h'), std::string::npos) << on;
    EXPECT_NE(on.find('x'), std::string::npos) << on; // what was there stays
  }
  auto after = events();
  EXPECT_EQ(std::set<char>(after.begin(), after.end()), (std::set<char>{'E', 'x'}));
}

TEST_F(watch_fixture, resolves_each_watched_uid_when_its_write_lands) {
  mailbox_watch watch(d, http, std::chrono::milliseconds{10}, true);
  std::map<std::string, int> seen;
  auto mark = [&](const std::string& uid) {
    return [&seen, uid](clock::time_point) { ++seen[uid]; };
  };
  // One change in flight to a mailbox: its write is it.
  watch.watch_uid(p, p.lines[0], "u1", 1, mark("u1"));
  hset(p.lines[0], {"u1"});
  ASSERT_TRUE(run_until([&] { return seen.count("u1") > 0; }));

  // Two in flight: only the one written is resolved.
  watch.watch_uid(p, p.lines[0], "u2", 2, mark("u2"));
  watch.watch_uid(p, p.lines[0], "u3", 3, mark("u3"));
  hset(p.lines[0], {"u3"});
  ASSERT_TRUE(run_until([&] { return seen.count("u3") > 0; }));
  EXPECT_EQ(seen.count("u2"), 0u);
  EXPECT_EQ(watch.waiting(), 1u);
  hset(p.lines[0], {"u2"});
  ASSERT_TRUE(run_until([&] { return seen.count("u2") > 0; }));

  // A write to another line's mailbox resolves nothing here.
  watch.watch_uid(p, p.lines[0], "u4", 4, mark("u4"));
  hset(p.lines[1], {"u4"});
  settle();
  EXPECT_EQ(seen.count("u4"), 0u);

  // A forgotten uid (its upload was shed) never fires.
  watch.forget_uid(p, p.lines[0], "u4");
  hset(p.lines[0], {"u4"});
  settle();
  EXPECT_EQ(seen.count("u4"), 0u);
  EXPECT_EQ(watch.waiting(), 0u);
  for (const auto& [uid, n] : seen)
    EXPECT_EQ(n, 1) << uid;
}

TEST_F(watch_fixture, a_count_watch_fires_once_the_mailbox_holds_enough) {
  mailbox_watch watch(d, http, std::chrono::milliseconds{10}, true);
  int fired = 0;
  watch.watch_count(p, p.lines[1], 5, [&](clock::time_point) { ++fired; });
  hset(p.lines[1], {"a", "b", "c"});
  settle();
  EXPECT_EQ(fired, 0);
  hset(p.lines[1], {"d", "e"});
  ASSERT_TRUE(run_until([&] { return fired > 0; }));
  hset(p.lines[1], {"f"});
  settle();
  EXPECT_EQ(fired, 1);
}

} // namespace
