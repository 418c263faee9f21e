// load/mailbox_watch against a real redis-server: keyspace notifications of
// the accounts' history entries (what a line's mailbox is read from) resolve
// exactly the watched changes, and the server's notify-keyspace-events
// setting comes back afterwards.

#include "load/mailbox_watch.hpp"
#include "store/history_fields.hpp"
#include "store/keys.hpp"
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

  /// A history entry of `who`'s account at the carrier, as the store's
  /// scripts write them: one change, or additions (netstrings).
  void note(const person& who, const std::string& kind, std::vector<std::string> uids) {
    namespace field = simsync::store::history_fields;
    // A command holds views: what it names must outlive it.
    auto key = simsync::store::keys::history(who.idcode);
    std::string listed;
    for (const auto& u : uids)
      listed += std::to_string(u.size()) + ":" + u;
    simsync::store::command cmd{
        "XADD", key, "*", field::kind, kind, field::origin, "carrier-a|line"};
    if (kind == "added")
      cmd.insert(cmd.end(), {field::uids, listed});
    else
      cmd.insert(cmd.end(), {field::uid, uids.at(0), field::previous, "1:record"});
    auto added = client.call(cmd);
    ASSERT_TRUE(added);
    ASSERT_FALSE(added->view().is_error()) << added->view().str();
  }
  void changed(const person& who, const std::string& uid) { note(who, "changed", {uid}); }

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
    EXPECT_NE(on.find('t'), std::string::npos) << on;
    EXPECT_NE(on.find('x'), std::string::npos) << on; // what was there stays
  }
  auto after = events();
  EXPECT_EQ(std::set<char>(after.begin(), after.end()), (std::set<char>{'E', 'x'}));
}

TEST_F(watch_fixture, resolves_each_watched_uid_when_its_change_lands) {
  mailbox_watch watch(d, http, std::chrono::milliseconds{10}, true);
  std::map<std::string, int> seen;
  auto mark = [&](const std::string& uid) {
    return [&seen, uid](clock::time_point) { ++seen[uid]; };
  };
  // One change in flight to a mailbox: its write is it.
  watch.watch_uid(p, p.lines[0], "u1", 1, mark("u1"));
  changed(p, "u1");
  ASSERT_TRUE(run_until([&] { return seen.count("u1") > 0; }));

  // Two in flight: only the one written is resolved.
  watch.watch_uid(p, p.lines[0], "u2", 2, mark("u2"));
  watch.watch_uid(p, p.lines[0], "u3", 3, mark("u3"));
  changed(p, "u3");
  ASSERT_TRUE(run_until([&] { return seen.count("u3") > 0; }));
  EXPECT_EQ(seen.count("u2"), 0u);
  EXPECT_EQ(watch.waiting(), 1u);
  // An edit that lost to a concurrent one never was the book's.
  watch.watch_uid(p, p.lines[0], "u6", 6, mark("u6"));
  note(p, "lost", {"u2"});
  settle();
  EXPECT_EQ(seen.count("u2"), 0u);
  changed(p, "u2");
  ASSERT_TRUE(run_until([&] { return seen.count("u2") > 0; }));
  EXPECT_EQ(seen.count("u6"), 0u);
  note(p, "added", {"u6"});
  ASSERT_TRUE(run_until([&] { return seen.count("u6") > 0; }));

  // A change to another person's account resolves nothing here.
  person other = p;
  other.idcode = "4567cdef";
  watch.watch_uid(p, p.lines[0], "u4", 4, mark("u4"));
  changed(other, "u4");
  settle();
  EXPECT_EQ(seen.count("u4"), 0u);

  // A forgotten uid (its upload was shed) never fires.
  watch.forget_uid(p.lines[0], "u4");
  changed(p, "u4");
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
  note(p, "added", {"a", "b", "c"});
  settle();
  EXPECT_EQ(fired, 0);
  changed(p, "a"); // the same card again counts once
  settle();
  EXPECT_EQ(fired, 0);
  note(p, "added", {"d", "e"});
  ASSERT_TRUE(run_until([&] { return fired > 0; }));
  note(p, "added", {"f"});
  settle();
  EXPECT_EQ(fired, 1);
}

} // namespace
