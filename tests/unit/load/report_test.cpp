#include "load/deployment.hpp"
#include "load/report.hpp"
#include "load/scenarios/scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace simsync::load;

TEST(report, reads_the_rate_redis_benchmark_prints) {
  std::string out = "HSET: rps=12.0 (overall: 0.0) avg_msec=0.1\r"
                    "HSET: 412345.67 requests per second, p50=0.103 msec\n";
  EXPECT_DOUBLE_EQ(parse_benchmark_rate(out, "HSET"), 412345.67);
  EXPECT_EQ(parse_benchmark_rate("ERROR: connection refused", "HSET"), 0.0);
}

TEST(report, the_table_says_when_a_scenario_failed_verification) {
  std::vector<nlohmann::json> results{
      {{"scenario", "bulk"}, {"verified", true}, {"changes_per_s", 51234.5}},
      {{"scenario", "large"}, {"verified", false}, {"p99_ms", 12.5}}};
  auto table = format_table(results);
  EXPECT_NE(table.find("bulk"), std::string::npos);
  EXPECT_NE(table.find("51234"), std::string::npos);
  EXPECT_NE(table.find("NO"), std::string::npos);
  EXPECT_NE(table.find("12.50"), std::string::npos);
}

TEST(report, the_plot_script_draws_three_percentiles_and_the_target) {
  auto script = plot_script("steps.dat", "out.png", 25);
  EXPECT_NE(script.find("pngcairo"), std::string::npos);
  EXPECT_NE(script.find("'out.png'"), std::string::npos);
  EXPECT_NE(script.find("using 1:2"), std::string::npos);
  EXPECT_NE(script.find("using 1:4"), std::string::npos);
  EXPECT_NE(script.find("25 with lines"), std::string::npos);
}

TEST(deployment, from_cluster_status_json) {
  auto json = nlohmann::json::parse(R"({"carriers":[
    {"id":"carrier-a","gateway":"http://127.0.0.1:18080/","admin":"http://127.0.0.1:19090",
     "admin_key_file":"/x/carrier-a.admin.key","nodes":[
      {"id":"a1","pid":42,"redis":"127.0.0.1:16379","up":true,"sms_file":"/x/a1/sms.ndjson"},
      {"id":"a2","pid":null,"redis":"127.0.0.1:16380","up":true,"sms_file":"/x/a2/sms.ndjson"}]},
    {"id":"carrier-b","gateway":"http://10.77.0.2:18081","nodes":[]}]})");
  auto d = deployment_from_json(json);
  ASSERT_EQ(d.carriers.size(), 2u);
  EXPECT_EQ(d.carriers[0].gateway, "http://127.0.0.1:18080");
  EXPECT_EQ(d.carriers[0].redis,
            (std::vector<std::string>{"127.0.0.1:16379", "127.0.0.1:16380"}));
  EXPECT_EQ(d.carriers[0].carrierd_pids, std::vector<int>{42});
  EXPECT_EQ(d.carriers[0].admin, "http://127.0.0.1:19090");
  EXPECT_EQ(d.carriers[0].admin_key_file, "/x/carrier-a.admin.key");
  EXPECT_EQ(d.carriers[0].sms_files,
            (std::vector<std::string>{"/x/a1/sms.ndjson", "/x/a2/sms.ndjson"}));
  EXPECT_TRUE(d.carriers[1].admin.empty());
  EXPECT_FALSE(d.has_redis()); // carrier-b lists none
  EXPECT_THROW(deployment_from_json(nlohmann::json::parse(R"({"carriers":[]})")),
               std::runtime_error);
}

TEST(deployment, redis_logins_come_from_the_status_and_read_their_password_file) {
  auto file = std::filesystem::temp_directory_path() /
              ("simsync-operator-" + std::to_string(::getpid()) + ".password");
  std::ofstream(file) << "operator-secret\n";
  auto json = nlohmann::json::parse(R"({"carriers":[
    {"id":"carrier-a","gateway":"http://127.0.0.1:18080","nodes":[
      {"id":"a1","redis":"127.0.0.1:16379","redis_user":"operator",
       "redis_password_file":")" + file.string() +
                                    R"("},
      {"id":"a2","redis":"127.0.0.1:16380"}]}]})");
  auto d = deployment_from_json(json);
  ASSERT_EQ(d.carriers[0].redis_logins.size(), 2u);
  EXPECT_EQ(d.carriers[0].redis_logins[0].user, "operator");
  auto first = redis_endpoint_of(d.carriers[0], 0);
  EXPECT_EQ(first.port, 16379);
  EXPECT_EQ(first.user, "operator");
  EXPECT_EQ(first.password, "operator-secret"); // without the final newline
  auto second = redis_endpoint_of(d.carriers[0], 1);
  EXPECT_EQ(second.password, ""); // none given: no AUTH
  std::filesystem::remove(file);
  try {
    redis_endpoint_of(d.carriers[0], 0);
    ADD_FAILURE() << "an absent password file is an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }

  // By hand: --redis with --redis-user and --redis-password-file.
  auto hand = deployment_from_gateways("carrier-a=http://10.0.0.1:18080");
  add_redis(hand, "carrier-a=10.0.0.1:6379");
  set_redis_login(hand, {"operator", "/absent/operator.password"});
  ASSERT_EQ(hand.carriers[0].redis_logins.size(), 1u);
  EXPECT_EQ(hand.carriers[0].redis_logins[0].password_file, "/absent/operator.password");
}

TEST(deployment, from_the_command_line) {
  auto d =
      deployment_from_gateways("carrier-a=http://10.0.0.1:18080,carrier-b=http://h:1");
  ASSERT_EQ(d.carriers.size(), 2u);
  EXPECT_EQ(d.carriers[1].id, "carrier-b");
  add_redis(d, "carrier-a=10.0.0.1:6379,carrier-b=h:2");
  EXPECT_TRUE(d.has_redis());
  EXPECT_THROW(add_redis(d, "carrier-z=h:3"), std::runtime_error);
  add_admin(d, "carrier-b=http://h:9/");
  add_admin_keys(d, "carrier-b=b.admin.key");
  add_sms_files(d, "carrier-b=b1/sms.ndjson,carrier-b=b2/sms.ndjson");
  EXPECT_EQ(d.carriers[1].admin, "http://h:9");
  EXPECT_EQ(d.carriers[1].admin_key_file, "b.admin.key");
  EXPECT_EQ(d.carriers[1].sms_files.size(), 2u);
  EXPECT_THROW(deployment_from_gateways("carrier-a"), std::runtime_error);
  EXPECT_THROW(deployment_from_gateways("a=http://x,a=http://y"), std::runtime_error);
}

TEST(population, persons_have_two_or_three_carriers_and_some_a_second_line_at_one) {
  auto d = deployment_from_gateways("a=http://a,b=http://b,c=http://c");
  auto persons = make_persons(d, 8, 1234, 0);
  std::set<std::string> msisdns;
  bool some_share_a_carrier = false;
  for (const auto& p : persons) {
    std::set<std::string> carriers;
    for (const auto& l : p.lines) {
      carriers.insert(l.carrier);
      EXPECT_TRUE(msisdns.insert(l.msisdn).second) << l.msisdn;
    }
    EXPECT_GE(carriers.size(), 2u);
    EXPECT_LE(carriers.size(), 3u);
    some_share_a_carrier |= carriers.size() < p.lines.size();
  }
  EXPECT_TRUE(some_share_a_carrier);
  // Another run's tag gives other numbers.
  EXPECT_NE(make_persons(d, 1, 1235, 0)[0].lines[0].msisdn, persons[0].lines[0].msisdn);
}

TEST(checks, a_pending_answer_must_hold_exactly_the_expected_uids) {
  person p;
  line l;
  l.msisdn = "+8610000000000";
  expectation want{&p, &l, 2, 0, 0, {"u1", "u2"}};
  nlohmann::json good{{"added", 2},
                      {"changed", 0},
                      {"removed", 0},
                      {"cards", make_card("u1", 1, 0) + make_card("u2", 2, 0)},
                      {"removed_uids", nlohmann::json::array()}};
  EXPECT_EQ(compare_pending(good, want), "");
  auto wrong = good;
  wrong["cards"] = make_card("u1", 1, 0) + make_card("u3", 3, 0);
  EXPECT_NE(compare_pending(wrong, want), "");
  auto short_count = good;
  short_count["added"] = 1;
  EXPECT_NE(compare_pending(short_count, want), "");
}
