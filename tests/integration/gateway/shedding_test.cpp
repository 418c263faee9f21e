// Load shedding on replication lag: while a peer carrier is up but not taking
// what it is sent, shared uploads are refused with 503 and Retry-After instead
// of queueing without bound; private uploads go on; once the peer catches up
// shared uploads are taken again, and exactly the accepted changes arrive.
#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/paused_process.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <thread>

using namespace simsync::testing;

namespace {

/// The UIDs of the cards a pending answer holds.
std::set<std::string> uids_in(const http_answer& pending) {
  std::set<std::string> out;
  auto cards = pending.json.value("cards", "");
  std::regex uid_line{"UID:([^\r\n]+)"};
  for (std::sregex_iterator i{cards.begin(), cards.end(), uid_line}, end; i != end; ++i)
    out.insert((*i)[1]);
  return out;
}

} // namespace

TEST(shedding, shared_uploads_are_refused_while_a_peer_that_is_up_falls_behind) {
  deployment::options opts;
  opts.max_replication_lag_ms = 300;
  deployment d{{"carrier-a", "carrier-b"}, opts};
  gateway_client http{d};
  auto a = http.register_line("carrier-a", "+8613800000001", 1);
  auto b = http.register_line("carrier-b", "+8618600000001", 1);
  std::set<std::string> accepted;
  ASSERT_EQ(http.push(a, card("c-0", "First"), "", "POST").status, 200);
  accepted.insert("c-0");
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; }));

  // carrier-b's node stays up (it answers heartbeats) but its Redis stops:
  // the window sent to it is never acknowledged and the link falls behind.
  paused_process redis_b{d.redis("carrier-b").pid()};
  http_answer refused;
  for (int i = 1; i <= 100 && refused.status == 0; ++i) {
    auto uid = "c-" + std::to_string(i);
    auto answer = http.push(a, card(uid, "Card " + std::to_string(i)), "", "POST");
    if (answer.status == 200)
      accepted.insert(uid);
    else
      refused = answer;
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  ASSERT_EQ(refused.status, 503) << refused;
  EXPECT_TRUE(refused.is_problem()) << refused;
  EXPECT_EQ(refused.json.value("type", ""), "urn:simsync:problem:replication-behind");
  // The phone is told to retry; which peer is behind is the operator's business.
  EXPECT_NE(refused.json.value("detail", "").find("retry"), std::string::npos) << refused;
  EXPECT_EQ(refused.json.value("detail", "").find("carrier-b"), std::string::npos)
      << refused;
  EXPECT_EQ(refused.retry_after, "1"); // just beyond the limit
  // Further behind, the phone is told to wait the lag beyond the limit: a
  // book sent again sooner would be refused again.
  std::this_thread::sleep_for(std::chrono::milliseconds{2600});
  auto later = http.push(a, card("c-later", "Later"), "", "POST");
  ASSERT_EQ(later.status, 503) << later;
  EXPECT_GE(std::stoi(later.retry_after.empty() ? "0" : later.retry_after), 2) << later;
  EXPECT_EQ(later.json.value("retry_after", 0), std::stoi(later.retry_after)) << later;
  // Refused before the book is read (reading it would only waste the CPU
  // replication needs): a body that holds no card, 422 otherwise, is 503 too.
  auto unread = http.push(a, "not a vCard", "", "POST");
  EXPECT_EQ(unread.status, 503) << unread;
  // A private upload never waits for a peer: it is taken.
  EXPECT_EQ(http.push(a, card("p-1", "Private"), "private", "POST").status, 200);

  redis_b.resume();
  bool taken_again = eventually([&] {
    auto answer = http.push(a, card("c-after", "After"), "", "POST");
    return answer.status == 200;
  });
  ASSERT_TRUE(taken_again);
  accepted.insert("c-after");

  // Exactly what was accepted arrives at b; nothing refused, nothing private.
  ASSERT_TRUE(eventually([&] {
    return http.pending_added(b) == static_cast<long>(accepted.size());
  })) << http.pending_added(b)
      << " pending, " << accepted.size() << " accepted";
  EXPECT_EQ(uids_in(http.pending(b)), accepted);
}

TEST(shedding, requests_beyond_the_in_flight_limit_are_refused_at_once) {
  deployment::options opts;
  opts.max_in_flight = 2;
  deployment d{{"carrier-a"}, opts};
  gateway_client http{d};
  auto a = http.register_line("carrier-a", "+8613800000002", 2);
  std::string book;
  for (int i = 0; i < 2000; ++i)
    book += card("big-" + std::to_string(i), "Card " + std::to_string(i));

  // Twenty phones push the same book at once: two are handled, the others
  // that arrive meanwhile are told to come back, not queued.
  std::vector<http_answer> answers(20);
  std::vector<std::thread> phones;
  for (auto& answer : answers)
    phones.emplace_back([&] { answer = http.push(a, book); });
  for (auto& phone : phones)
    phone.join();
  auto count = [&](int status) {
    return std::count_if(answers.begin(), answers.end(),
                         [&](const http_answer& x) { return x.status == status; });
  };
  EXPECT_GE(count(200), 1);
  EXPECT_GE(count(503), 1);
  EXPECT_EQ(count(200) + count(503), 20);
  for (const auto& answer : answers) {
    if (answer.status != 503)
      continue;
    EXPECT_TRUE(answer.is_problem()) << answer;
    EXPECT_EQ(answer.json.value("type", ""), "urn:simsync:problem:overloaded");
    EXPECT_EQ(answer.retry_after, "1");
    EXPECT_EQ(answer.header("Date").size(), 29u) << answer.header("Date"); // IMF-fixdate
  }
  // Nothing was half stored: the book is whole, and the node takes requests again.
  auto read = http.contacts(a);
  ASSERT_EQ(read.status, 200) << read;
  std::size_t cards = 0;
  for (auto at = read.body.find("UID:big-"); at != std::string::npos;
       at = read.body.find("UID:big-", at + 1))
    ++cards;
  EXPECT_EQ(cards, 2000u);
}

TEST(shedding, the_node_that_owns_the_account_decides) {
  // carrier-a has two nodes, each with its own Redis, outbox and links; a
  // push reaches node 0's gateway for an account whose shard (and outbox)
  // is on node 1. Node 0's own links have nothing waiting.
  deployment::options opts;
  opts.max_replication_lag_ms = 300;
  opts.nodes = {{"carrier-a", 2}};
  deployment d{{"carrier-a", "carrier-b"}, opts};
  gateway_client http{d};
  // Node 0 learns node 1's shards from it shortly after both start: wait
  // until a number whose claim lives on node 1 passes through it (a line id
  // is a keyed hash, so which number that is depends on the deployment's keys).
  const auto probe = number_on_node(d, "carrier-a", "+86138000009", 1);
  nlohmann::json record{{"iccid", gateway_client::default_iccid},
                        {"name", "Person 99"},
                        {"id_number", id_number_of(99)}};
  ASSERT_TRUE(eventually([&] {
    auto put =
        http.admin("carrier-a", "PUT", "/admin/subscribers/" + probe, record.dump());
    return put.status == 200 || put.status == 201;
  }));
  ASSERT_TRUE(
      eventually([&] { return http.request_code("carrier-a", probe).status == 202; }));
  line a, b;
  for (int person = 10; person < 40 && a.idcode.empty(); ++person) {
    auto candidate =
        http.register_line("carrier-a", "+86138000001" + std::to_string(person), person);
    if (simsync::config::shard_of(candidate.idcode, d.shards()) % 2 == 1) {
      a = candidate;
      b = http.register_line("carrier-b", "+86186000001" + std::to_string(person),
                             person);
    }
  }
  ASSERT_FALSE(a.idcode.empty()) << "no person's account landed on node 1";
  ASSERT_EQ(http.push(a, card("n-0", "First"), "", "POST").status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; }));

  paused_process redis_b{d.redis("carrier-b").pid()};
  http_answer refused;
  for (int i = 1; i <= 100 && refused.status == 0; ++i) {
    auto answer = http.push(a, card("n-" + std::to_string(i), "Card"), "", "POST");
    if (answer.status != 200)
      refused = answer;
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  EXPECT_EQ(refused.status, 503) << refused;
  EXPECT_EQ(refused.json.value("type", ""), "urn:simsync:problem:replication-behind");
}
