// Faults with real processes: a sibling carrier's carrierd or redis-server
// goes away while the other keeps taking uploads; when it returns it
// converges, and its line's mailbox holds exactly the changes, once each.
#include "tests/integration/node/node_fixture.hpp"
#include "tests/support/paused_process.hpp"

#include <csignal>

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";
const std::string line_b = "+8618600186000";

struct sibling_outage : ::testing::Test {
  void SetUp() override {
    client.register_line("carrier-a", person, line_a, {"carrier-b"});
    client.register_line("carrier-b", person, line_b, {"carrier-a"});
    std::vector<core::book_entry> book;
    for (int i = 0; i < 10; ++i)
      book.push_back(make_card("u" + std::to_string(i), "Li " + std::to_string(i)));
    client.upload("carrier-a", person, line_a, book);
    ASSERT_TRUE(eventually(
        [&] { return client.counts("carrier-b", person, line_b).added == 10; }));
    // Line b takes the book, so later edits show as changed / removed.
    auto f = client.ask<store::pending_fetch>(
        "carrier-b", person, atom::fetch_v,
        store::pending_request{person, line_b, client.proof, 0, "", ""});
    ASSERT_TRUE(f);
    auto acked = client.ask<store::ack_progress>(
        "carrier-b", person, atom::ack_v, person, line_b, client.proof, f->cursor,
        store::decision::apply, std::uint32_t{0});
    ASSERT_TRUE(acked);
    ASSERT_TRUE(acked->finished);
  }

  /// While carrier-b is away: change u1, add n1..n3, remove u2 (three uploads).
  void edit_at_a() {
    client.upload("carrier-a", person, line_a, {make_card("u1", "Li Lei")},
                  store::upload_mode::delta);
    client.upload(
        "carrier-a", person, line_a,
        {make_card("n1", "New 1"), make_card("n2", "New 2"), make_card("n3", "New 3")},
        store::upload_mode::delta);
    store::upload_request rm;
    rm.idcode = person;
    rm.line = line_a;
    rm.token_hash = client.proof;
    rm.mode = store::upload_mode::remove;
    rm.uids = {"u2"};
    rm.now_ms = 1;
    ASSERT_TRUE(
        client.ask<store::upload_result>("carrier-a", person, atom::upload_v, rm));
  }

  void expect_converged_with_exact_mailbox() {
    ASSERT_TRUE(eventually([&] {
      return client.shared("carrier-b", person, line_b) ==
             client.shared("carrier-a", person, line_a);
    })) << "carrier-b did not converge";
    auto f = client.ask<store::pending_fetch>(
        "carrier-b", person, atom::fetch_v,
        store::pending_request{person, line_b, client.proof, 0, "", ""});
    ASSERT_TRUE(f) << describe(f.error());
    EXPECT_EQ(kinds(*f), (std::map<std::string, std::string>{{"u1", "changed"},
                                                             {"n1", "added"},
                                                             {"n2", "added"},
                                                             {"n3", "added"},
                                                             {"u2", "removed"}}));
    EXPECT_EQ(f->changes.size(), 5u); // none twice
  }

  deployment d{{"carrier-a", "carrier-b"}};
  carrier_client client{d};
};

} // namespace

TEST_F(sibling_outage, a_crashed_sibling_process_catches_up_when_it_returns) {
  d.stop("carrier-b", SIGKILL);
  edit_at_a();
  d.start("carrier-b");
  client.forget("carrier-b");
  expect_converged_with_exact_mailbox();
}

TEST_F(sibling_outage, a_sibling_redis_crash_loses_nothing_acknowledged) {
  // carrier-b's Redis is down while carrier-a takes the edits: the link's
  // deliveries fail and are retried until it is back (AOF, appendfsync always).
  d.redis("carrier-b").stop(SIGKILL);
  edit_at_a();
  std::this_thread::sleep_for(std::chrono::milliseconds{300}); // some deliveries fail
  d.redis("carrier-b").start();
  expect_converged_with_exact_mailbox();
}

namespace {

/// Field `name` of the Redis's INFO persistence ("" when it has none), on a
/// new connection each time: the test restarts the Redis.
std::string persistence_field(redis_server& redis, const std::string& name) {
  auto admin = redis.connect();
  return info_field(admin, "persistence", name);
}

} // namespace

TEST_F(sibling_outage,
       a_sibling_redis_loading_its_data_refuses_clearly_and_loses_nothing) {
  // A Redis that restarts with a large data set answers LOADING until it has
  // read it all back: carrier-b's calls fail as the store unavailable (a
  // line's request is refused, carrier-a's deliveries are retried), and once
  // it has loaded, carrier-b converges. 3,000 keys of filler, read back at a
  // millisecond each, make the load last about three seconds.
  auto& redis_b = d.redis("carrier-b");
  {
    auto admin = redis_b.connect();
    for (int chunk = 0; chunk < 6; ++chunk) {
      std::vector<std::string> args{"MSET"};
      for (int i = 0; i < 500; ++i) {
        args.push_back("filler:" + std::to_string(chunk * 500 + i));
        args.push_back("a value that makes the data set take a while to load");
      }
      store::command cmd(args.begin(), args.end());
      ASSERT_TRUE(admin.call(cmd));
    }
    // Into the append-only file's RDB base, which is read key by key.
    ASSERT_TRUE(admin.call({"BGREWRITEAOF"}));
  }
  ASSERT_TRUE(eventually([&] {
    return persistence_field(redis_b, "aof_rewrite_in_progress") == "0" &&
           persistence_field(redis_b, "aof_rewrite_scheduled") == "0";
  }));
  redis_b.stop(SIGKILL);
  edit_at_a();
  redis_b.start_loading_slowly(std::chrono::milliseconds{1});
  ASSERT_EQ(persistence_field(redis_b, "loading"), "1");
  auto refused = client.ask<store::pending_counts>("carrier-b", person, atom::update_v,
                                                   person, line_b, client.proof);
  ASSERT_EQ(persistence_field(redis_b, "loading"), "1") << "the load ended too soon";
  ASSERT_FALSE(refused) << "carrier-b answered from a Redis still loading";
  EXPECT_EQ(refused.error(), ec::store_unavailable) << describe(refused.error());
  expect_converged_with_exact_mailbox();
}

TEST_F(sibling_outage, a_full_sibling_redis_still_serves_reads_and_loses_nothing) {
  // At its maxmemory (noeviction) carrier-b's Redis refuses every write:
  // carrier-a's deliveries are refused and sent again, and a line's update
  // request (it notes its counts) is refused as the store unavailable, while
  // the line still reads its book, unchanged. Once Redis has room, carrier-b
  // converges.
  auto admin = d.redis("carrier-b").connect();
  const auto book_before = client.shared("carrier-b", person, line_b);
  ASSERT_TRUE(admin.call({"CONFIG", "SET", "maxmemory", "1"}));
  edit_at_a();
  std::this_thread::sleep_for(std::chrono::milliseconds{300}); // deliveries refused
  EXPECT_EQ(client.shared("carrier-b", person, line_b), book_before);
  auto refused = client.ask<store::pending_counts>("carrier-b", person, atom::update_v,
                                                   person, line_b, client.proof);
  ASSERT_FALSE(refused) << "carrier-b wrote to a full Redis";
  EXPECT_EQ(refused.error(), ec::store_unavailable) << describe(refused.error());
  ASSERT_TRUE(admin.call({"CONFIG", "SET", "maxmemory", "0"}));
  expect_converged_with_exact_mailbox();
}

TEST_F(sibling_outage, the_sender_crashing_keeps_its_outbox) {
  d.stop("carrier-b", SIGTERM);
  edit_at_a();
  d.stop("carrier-a", SIGKILL);
  d.redis("carrier-a").restart(/*crash=*/true);
  d.start("carrier-a");
  d.start("carrier-b");
  client.forget("carrier-a");
  client.forget("carrier-b");
  expect_converged_with_exact_mailbox();
}

TEST_F(sibling_outage, a_backlog_of_many_accounts_on_every_shard_converges) {
  // Eight more people (on both of carrier-b's shards), each with two edits
  // made while carrier-b is away: the backlog travels in windows of many
  // accounts, split by node and shard, and every account converges.
  std::vector<std::string> people;
  for (unsigned p = 1; p <= 8; ++p) {
    char id[65];
    std::snprintf(id, sizeof id, "%08x%056x", p * 2654435761u, p);
    people.push_back(id);
  }
  auto line_of = [](const std::string& carrier, std::size_t i) {
    return (carrier == "carrier-a" ? "+86138100000" : "+86186100000") + std::to_string(i);
  };
  for (std::size_t i = 0; i < people.size(); ++i) {
    client.register_line("carrier-a", people[i], line_of("carrier-a", i), {"carrier-b"});
    client.register_line("carrier-b", people[i], line_of("carrier-b", i), {"carrier-a"});
  }
  for (std::size_t i = 0; i < people.size(); ++i) {
    // Once the asks were answered, an upload reaches carrier-b.
    ASSERT_TRUE(eventually([&] {
      client.upload("carrier-a", people[i], line_of("carrier-a", i),
                    {make_card("c1", "One")});
      return client.counts("carrier-b", people[i], line_of("carrier-b", i)).added == 1;
    }));
  }
  d.stop("carrier-b", SIGTERM);
  for (std::size_t i = 0; i < people.size(); ++i) {
    client.upload("carrier-a", people[i], line_of("carrier-a", i),
                  {make_card("c1", "Two"), make_card("c2", "Extra")});
    client.upload("carrier-a", people[i], line_of("carrier-a", i),
                  {make_card("c1", "Three")});
  }
  d.start("carrier-b");
  client.forget("carrier-b");
  for (std::size_t i = 0; i < people.size(); ++i) {
    ASSERT_TRUE(eventually([&] {
      return client.shared("carrier-b", people[i], line_of("carrier-b", i)) ==
             client.shared("carrier-a", people[i], line_of("carrier-a", i));
    })) << "person "
        << i << " did not converge";
    auto cards = client.shared("carrier-b", people[i], line_of("carrier-b", i));
    ASSERT_EQ(cards.size(), 1u);
    EXPECT_NE(cards["c1"].find("Three"), std::string::npos);
  }
}

TEST_F(sibling_outage, a_crash_while_a_large_book_streams_loses_and_repeats_nothing) {
  // A book arriving in parts, each more than a request's 512 KiB of
  // batches: the link reads each part's entries as they come and has several
  // windows in flight at once. carrier-b is killed half-way and comes back:
  // every window in flight is sent again, and the book arrives whole, each
  // card added once.
  constexpr int parts = 6;
  constexpr int part_cards = 4000;
  auto send_part = [&](int part) {
    std::vector<core::book_entry> cards;
    for (int i = 0; i < part_cards; ++i) {
      auto n = std::to_string(part * part_cards + i);
      cards.push_back(make_card("big-" + n, "Card " + n));
    }
    client.upload("carrier-a", person, line_a, cards, store::upload_mode::delta);
  };
  for (int part = 0; part < parts / 2; ++part)
    send_part(part);
  d.stop("carrier-b", SIGKILL);
  for (int part = parts / 2; part < parts; ++part)
    send_part(part);
  d.start("carrier-b");
  client.forget("carrier-b");
  ASSERT_TRUE(eventually(
      [&] {
        return client.shared("carrier-b", person, line_b) ==
               client.shared("carrier-a", person, line_a);
      },
      std::chrono::seconds{60}))
      << "carrier-b did not converge";
  auto counted = client.counts("carrier-b", person, line_b);
  EXPECT_EQ(counted.added, std::size_t{parts * part_cards});
  EXPECT_EQ(counted.changed, 0u);
  EXPECT_EQ(counted.removed, 0u);
}

TEST(unanswered_window, is_given_up_after_the_ack_timeout_and_its_change_still_arrives) {
  // carrier-b's carrierd is stopped, not gone: the connections to it stay
  // open, so nothing fails on carrier-a's side but the wait for the
  // acknowledgements of the window it sent.
  deployment::options opts;
  opts.ack_timeout_seconds = 1;
  deployment d{{"carrier-a", "carrier-b"}, opts};
  carrier_client client{d};
  client.register_line("carrier-a", person, line_a, {"carrier-b"});
  client.register_line("carrier-b", person, line_b, {"carrier-a"});
  client.upload("carrier-a", person, line_a, {make_card("u1", "Li")});
  ASSERT_TRUE(
      eventually([&] { return client.counts("carrier-b", person, line_b).added == 1; }));
  {
    paused_process stopped{d.pid("carrier-b")};
    client.upload("carrier-a", person, line_a, {make_card("u2", "Wang")},
                  store::upload_mode::delta);
    EXPECT_TRUE(eventually([&] {
      return d.log("carrier-a").find("no acknowledgement from carrier-b in 1 s") !=
             std::string::npos;
    })) << "carrier-a's link never gave up its window:\n"
        << d.log("carrier-a");
  }
  // Resumed, carrier-b answers the first window late (the link ignores
  // answers to a window it gave up) and takes the one sent again: its apply
  // takes the same change once.
  EXPECT_TRUE(
      eventually([&] { return client.counts("carrier-b", person, line_b).added == 2; }));
}
