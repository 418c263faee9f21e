// The admin port of real carrierd processes: /admin/actors shows the work a
// node did and the state of its links; /metrics passes `promtool check metrics`.

#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/paused_process.hpp"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <regex>

namespace simsync::testing {
namespace {

struct admin_test : shared_deployment<admin_test> {
  static std::vector<std::string> carriers() { return {"carrier-a", "carrier-b"}; }

  http_answer admin(const std::string& carrier, const std::string& path) {
    httplib::Client client("127.0.0.1", d->admin_port(carrier));
    client.set_read_timeout(std::chrono::seconds{10});
    auto r = client.Get(path);
    http_answer out;
    if (!r)
      return out;
    out.status = r->status;
    out.content_type = r->get_header_value("Content-Type");
    out.body = r->body;
    out.headers = r->headers;
    out.json = nlohmann::json::parse(out.body, nullptr, false);
    return out;
  }

  /// The latest snapshot of `carrier` once `done` holds for it; null if it
  /// never does within eventually()'s time.
  nlohmann::json actors_when(const std::string& carrier,
                             const std::function<bool(const nlohmann::json&)>& done) {
    nlohmann::json last;
    bool held = eventually([&] {
      auto a = admin(carrier, "/admin/actors");
      if (a.status != 200 || !a.json.is_object())
        return false;
      last = a.json;
      return done(last);
    });
    return held ? last : nlohmann::json{};
  }

  static const nlohmann::json* link_to(const nlohmann::json& snap,
                                       const std::string& peer) {
    for (const auto& l : snap["links"])
      if (l["peer"] == peer)
        return &l;
    return nullptr;
  }
};

TEST_F(admin_test, actors_show_the_work_of_each_shard_and_of_the_gateway_store) {
  auto a = http.register_line("carrier-a", "+8613800001001", 1);
  auto b = http.register_line("carrier-b", "+8613800001002", 1);
  std::string book;
  for (int i = 0; i < 20; ++i)
    book += card("admin-" + std::to_string(i), "Contact " + std::to_string(i));
  ASSERT_EQ(http.push(a, book).status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 20; }));
  auto shard = "account_shard/" + std::to_string(config::shard_of(a.idcode, d->shards()));
  // The snapshot a second later counts those requests in the shard's rate
  // (registration), and the upload in the gateway's store, which wrote it to
  // the node's Redis itself.
  auto snap = actors_when("carrier-a", [&](const nlohmann::json& s) {
    bool shard_worked = false;
    bool store_worked = false;
    for (const auto& actor : s["actors"]) {
      if (actor["name"] == shard)
        shard_worked =
            actor["processed"].get<int>() >= 2 && actor["rate"].get<double>() > 0;
      if (actor["name"] == "gateway/local_store")
        store_worked = actor["kind"] == "local_store" &&
                       actor["processed"].get<int>() >= 1 &&
                       actor["last_error"].get<std::string>().empty();
    }
    return shard_worked && store_worked;
  });
  ASSERT_TRUE(snap.is_object())
      << "no snapshot with work on " << shard << " and on the gateway's store";
  EXPECT_EQ(snap["carrier"], "carrier-a");
  EXPECT_EQ(snap["node"], "n1");
  EXPECT_FALSE(snap["version"].get<std::string>().empty());
  EXPECT_GT(snap["uptime_s"].get<double>(), 0);
  EXPECT_TRUE(snap["redis"]["up"].get<bool>());
  EXPECT_GT(snap["redis"]["used_memory"].get<long>(), 0);
  const auto* link = link_to(snap, "carrier-b");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ((*link)["state"], "up");
  EXPECT_GE((*link)["acknowledged"].get<int>(), 1);
  bool counted_upload = false;
  for (const auto& r : snap["gateway"]["routes"])
    if (r["route"] == "PUT /v1/lines/{msisdn}/contacts")
      counted_upload = r["answers"].value("200", 0) >= 1;
  EXPECT_TRUE(counted_upload) << snap["gateway"].dump();
}

TEST_F(admin_test, metrics_pass_promtool) {
  auto a = http.register_line("carrier-a", "+8613800001003", 2);
  ASSERT_EQ(http.push(a, card("m-1", "Metric")).status, 200);
  http_answer m;
  ASSERT_TRUE(eventually([&] {
    m = admin("carrier-a", "/metrics");
    return m.status == 200 &&
           m.body.find("route=\"PUT /v1/lines/{msisdn}/contacts\"") != std::string::npos;
  })) << m.body.substr(0, 400);
  EXPECT_NE(m.content_type.find("text/plain"), std::string::npos);
  EXPECT_EQ(m.header("Date").size(), 29u) << m.header("Date"); // IMF-fixdate
  EXPECT_NE(m.body.find("simsync_actor_processing_seconds_bucket"), std::string::npos);
  EXPECT_NE(m.body.find("simsync_peer_link_lag_seconds"), std::string::npos);
  auto path = d->dir() + "/metrics.txt";
  std::ofstream{path} << m.body;
  auto command = "promtool check metrics < " + path + " 2>&1";
  auto* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string said;
  char buffer[512];
  while (auto n = fread(buffer, 1, sizeof buffer, pipe))
    said.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << said;
  // Every series the Grafana dashboard charts is one the node exposes.
  std::ifstream dashboard{SIMSYNC_DASHBOARD};
  std::string text{std::istreambuf_iterator<char>{dashboard}, {}};
  std::regex name{"simsync_[a-z_]+"};
  int charted = 0;
  for (std::sregex_iterator it{text.begin(), text.end(), name}, end; it != end; ++it) {
    ++charted;
    EXPECT_NE(m.body.find("\n" + it->str()), std::string::npos) << it->str();
  }
  EXPECT_GT(charted, 10);
}

TEST_F(admin_test, unknown_paths_get_a_problem) {
  auto a = admin("carrier-a", "/admin/nothing");
  EXPECT_EQ(a.status, 404);
  EXPECT_EQ(a.content_type, "application/problem+json");
}

// The link learns of the kill from its closed connection (a down message),
// not from a timeout; how soon the snapshot shows it is the console's refresh
// (one second), not something this test times on a shared machine.
TEST_F(admin_test, a_killed_peer_shows_down_in_the_actor_snapshot) {
  ASSERT_TRUE(actors_when("carrier-a", [&](const nlohmann::json& s) {
                auto* l = link_to(s, "carrier-b");
                return l && (*l)["state"] == "up";
              }).is_object());
  d->stop("carrier-b", SIGKILL);
  auto snap = actors_when("carrier-a", [&](const nlohmann::json& s) {
    auto* l = link_to(s, "carrier-b");
    return l && (*l)["state"] == "down";
  });
  d->start("carrier-b");
  ASSERT_TRUE(snap.is_object());
}

// RESTinio closes a connection whose request it has not answered in its own
// time limit (10 s unless told otherwise): the admin port must outwait its
// shards, so that a stalled store gets the node's 504 and never a connection
// closed without an answer (seen by tools/cluster up after a node restarted).
TEST_F(admin_test, a_stalled_store_is_answered_with_a_504_problem) {
  nlohmann::json record{{"iccid", gateway_client::default_iccid},
                        {"name", "Person 7"},
                        {"id_number", id_number_of(7)},
                        {"active", true}};
  http_answer answer;
  {
    paused_process redis{d->redis("carrier-a").pid()};
    answer = http.admin("carrier-a", "PUT", "/admin/subscribers/+8613800001777",
                        record.dump());
  }
  EXPECT_EQ(answer.status, 504) << answer;
  EXPECT_TRUE(answer.is_problem()) << answer;
}

} // namespace
} // namespace simsync::testing
