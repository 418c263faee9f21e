// tools/loadtest against a real three-carrier deployment (carrierd and
// redis-server processes on free loopback ports): every scenario at a
// CI-small size must verify what it measured and report sane numbers.
// Performance is measured by the tool, never asserted here.

#include "tests/support/carrier_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

namespace {

using simsync::testing::deployment;

const std::vector<std::string> carriers{"carrier-a", "carrier-b", "carrier-c"};

/// The deployment as `tools/cluster status --json` would describe it (with
/// the admin ports, admin keys and SMS files that registration needs);
/// without Redis addresses when `with_redis` is false.
std::string describe(deployment& d, bool with_redis) {
  nlohmann::json out{{"carriers", nlohmann::json::array()}};
  for (const auto& c : carriers) {
    // The fixture's files: <dir>/<carrier>.admin.key, <dir>/<carrier>-n1/sms.ndjson.
    nlohmann::json node{{"id", "n0"},
                        {"up", true},
                        {"pid", d.pid(c)},
                        {"sms_file", d.dir() + "/" + c + "-n1/sms.ndjson"}};
    if (with_redis) {
      node["redis_pid"] = d.redis(c).pid();
      // The operator's login, as tools/cluster gives it: a user and its
      // password's file (here the test server's admin).
      const auto& admin = d.redis(c).admin_endpoint();
      auto password_file = d.dir() + "/" + c + ".redis.password.operator";
      std::ofstream(password_file) << admin.password << "\n";
      node["redis"] = admin.to_string();
      node["redis_user"] = admin.user;
      node["redis_password_file"] = password_file;
    }
    out["carriers"].push_back(
        {{"id", c},
         {"gateway", "http://127.0.0.1:" + std::to_string(d.gateway_port(c))},
         {"admin", "http://127.0.0.1:" + std::to_string(d.admin_port(c))},
         {"admin_key_file", d.dir() + "/" + c + ".admin.key"},
         {"seal_key_file", d.seal_key_file(c)},
         {"nodes", {node}}});
  }
  auto file = d.dir() + (with_redis ? "/deployment.json" : "/deployment-no-redis.json");
  std::ofstream(file) << out.dump(2);
  return file;
}

/// Runs loadtest; returns its exit status and the JSON it wrote.
int run_loadtest(const std::string& args, const std::string& json_file,
                 nlohmann::json* results) {
  auto command = std::string(SIMSYNC_LOADTEST_BINARY) + " " + args + " --json " +
                 json_file + " > " + json_file + ".log 2>&1";
  int status = std::system(command.c_str());
  std::ifstream in(json_file);
  *results = nlohmann::json::parse(in, nullptr, false);
  std::ifstream log(json_file + ".log");
  std::string text((std::istreambuf_iterator<char>(log)),
                   std::istreambuf_iterator<char>());
  if (status != 0)
    ADD_FAILURE() << "loadtest " << args << " exited with " << status << ":\n" << text;
  return status;
}

const nlohmann::json& find(const nlohmann::json& results, const std::string& scenario) {
  for (const auto& r : results)
    if (r.value("scenario", "") == scenario)
      return r;
  static const nlohmann::json none;
  ADD_FAILURE() << "no result for scenario " << scenario << " in " << results.dump();
  return none;
}

void expect_sane_latency(const nlohmann::json& r) {
  ASSERT_TRUE(r.contains("p50_ms") && r.contains("p99_ms") && r.contains("p999_ms"))
      << r.dump();
  double p50 = r["p50_ms"], p99 = r["p99_ms"], p999 = r["p999_ms"];
  EXPECT_GT(p50, 0.0) << r.dump();
  EXPECT_LE(p50, p99) << r.dump();
  EXPECT_LE(p99, p999) << r.dump();
  EXPECT_LT(p999, 60'000.0) << r.dump();
}

} // namespace

TEST(loadtest, every_scenario_verifies_what_it_measured) {
  deployment d(carriers);
  auto json_file = d.dir() + "/results.json";
  nlohmann::json results;
  ASSERT_EQ(run_loadtest("--deployment " + describe(d, true) +
                             " --scenario all --persons 12 --cards 40"
                             " --interactive-persons 30 --rates 40,80 --step-seconds 1"
                             " --large-cards 1500 --delta-edits 15"
                             " --redis-benchmark-requests 20000 --timeout-seconds 30"
                             " --plot " +
                             d.dir() + "/latency.png",
                         json_file, &results),
            0);
  ASSERT_TRUE(results.is_array()) << results.dump();
  for (const auto& r : results)
    EXPECT_TRUE(r.value("verified", false)) << r.dump(2);

  const auto& bulk = find(results, "bulk");
  EXPECT_EQ(bulk.value("persons", 0), 12);
  EXPECT_EQ(bulk.value("changes", 0), 12 * 40);
  EXPECT_GT(bulk.value("changes_per_s", 0.0), 0.0);
  EXPECT_EQ(bulk.value("detection", ""), "redis keyspace notifications");
  // What the deployment's processes spent on it, read from /proc by pid: new
  // carrierd processes take CPU, touch new memory and wake their threads for
  // 480 changes.
  for (const auto* figure :
       {"cpu_ms_per_change", "page_faults_per_change", "thread_wakes_per_change"}) {
    ASSERT_TRUE(bulk.contains(figure)) << bulk.dump(2);
    for (const auto* process : {"carrierd", "redis-server", "loadtest"})
      EXPECT_GE(bulk[figure].value(process, -1.0), 0.0) << figure << " " << process;
    EXPECT_GT(bulk[figure].value("carrierd", 0.0), 0.0) << figure;
  }

  const auto& interactive = find(results, "interactive");
  ASSERT_EQ(interactive["steps"].size(), 2u) << interactive.dump();
  for (const auto& step : interactive["steps"]) {
    EXPECT_EQ(step.value("issued", 0), step.value("offered_per_s", 0.0));
    EXPECT_EQ(step.value("visible", 0),
              step.value("accepted", 0)); // every accepted edit arrived
    expect_sane_latency(step);
  }
  expect_sane_latency(interactive);

  const auto& pull = find(results, "pull");
  EXPECT_EQ(pull.value("changes_acked", 0), bulk.value("sibling_mailboxes", 0) * 40);
  expect_sane_latency(pull);

  const auto& large = find(results, "large");
  EXPECT_GT(large.value("book_seconds", 0.0), 0.0);
  EXPECT_GT(large.value("delta_ms", 0.0), 0.0);
  EXPECT_EQ(large.value("samples", 0), 15);
  // The re-sync was answered, every card unchanged (else it is not verified,
  // which every result is checked for above).
  EXPECT_GT(large.value("resync_seconds", 0.0), 0.0);
  ASSERT_TRUE(large.contains("redis_memory"));
  EXPECT_GT(large["redis_memory"].value("shared_store_bytes_per_card", 0.0), 0.0);

  const auto& ceiling = find(results, "redis_ceiling");
  EXPECT_GT(ceiling.value("hset_per_s", 0.0), 0.0);
  EXPECT_GT(bulk.value("ratio_to_redis", 0.0), 0.0);

  std::ifstream png(d.dir() + "/latency.png", std::ios::binary);
  char magic[4] = {};
  png.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST(loadtest, without_redis_it_polls_the_api_and_still_verifies) {
  deployment d(carriers);
  auto json_file = d.dir() + "/results-no-redis.json";
  nlohmann::json results;
  ASSERT_EQ(run_loadtest("--deployment " + describe(d, false) +
                             " --scenario bulk --persons 6 --cards 30 --poll-ms 20"
                             " --no-redis-benchmark --timeout-seconds 30",
                         json_file, &results),
            0);
  const auto& bulk = find(results, "bulk");
  EXPECT_TRUE(bulk.value("verified", false)) << bulk.dump(2);
  EXPECT_EQ(bulk.value("resolution_ms", 0.0), 20.0);
  EXPECT_GT(bulk.value("changes_per_s", 0.0), 0.0);
}

TEST(loadtest, a_wrong_address_is_an_error_not_a_result) {
  nlohmann::json results;
  auto command = std::string(SIMSYNC_LOADTEST_BINARY) +
                 " --gateway carrier-a=http://127.0.0.1:1,carrier-b=http://127.0.0.1:2"
                 " --scenario bulk --persons 1 --cards 1 --no-redis-benchmark"
                 " > /dev/null 2>&1";
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
}
