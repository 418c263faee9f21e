#include "config/node_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace simsync::config {
namespace {

namespace fs = std::filesystem;

// The examples are read from the source tree, wherever the build happens.
const fs::path examples_dir =
    fs::path{__FILE__}.parent_path().parent_path().parent_path().parent_path() /
    "config" / "examples";

constexpr const char* raw_seal_key = "0123456789abcdef0123456789ABCDEF"; // 32 bytes

/// A valid single-node configuration; the tests change one thing at a time.
const std::string base_toml = R"(carrier = "carrier-a"
node = "a1"
federation_key_file = "federation.key"
seal_key_file = "seal.key"

[redis]
address = "127.0.0.1:6380"

[gateway]
listen = "127.0.0.1:8080"

[admin]
listen = "127.0.0.1:9090"

[federation]
listen = "127.0.0.1:7001"
)";

const std::string federation_table = "\n[federation]\nlisten = \"127.0.0.1:7001\"\n";

/// The base without [federation], for configurations with [[nodes]].
std::string base_without_federation() {
  auto text = base_toml;
  text.erase(text.find(federation_table), federation_table.size());
  return text;
}

/// `text` with its one occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  if (at == std::string::npos)
    throw std::logic_error("test setup: no " + from + " in the configuration");
  return text.replace(at, from.size(), to);
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

const std::string two_nodes = R"(
[[nodes]]
id = "a1"
federation = "127.0.0.1:7001"
cluster = "127.0.0.1:7011"
shards = [0, 1]

[[nodes]]
id = "a2"
federation = "127.0.0.1:7002"
cluster = "127.0.0.1:7012"
shards = [3, 2]
)";

const std::string peer_b = R"(
[[peers]]
id = "carrier-b"
shards = 2
  [[peers.nodes]]
  id = "b1"
  federation = "127.0.0.1:7101"
  shards = [0, 1]
)";

class config_test : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "simsync-config-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    write("federation.key", "federation-key-of-the-tests");
    write("seal.key", raw_seal_key);
  }

  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    auto path = dir_ / name;
    std::ofstream{path, std::ios::binary} << text;
    return path;
  }

  /// Writes `toml` as config.toml and loads it with `args` after --config.
  load_result load(const std::string& toml, std::vector<std::string> args = {}) {
    auto path = write("config.toml", toml);
    args.insert(args.begin(), {"carrierd", "--config", path.string()});
    return load_args(args);
  }

  static load_result load_args(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    for (const auto& arg : args)
      argv.push_back(arg.c_str());
    return load_node_config(static_cast<int>(argv.size()), argv.data());
  }

  /// The configuration of a load expected to succeed.
  static node_config loaded(const load_result& result) {
    EXPECT_EQ(result.error, "");
    if (!result.config)
      throw std::runtime_error("no configuration: " + result.error);
    return *result.config;
  }

  fs::path dir_;
};

// -- examples ------------------------------------------------------------------

/// A copy of an example deployment as `tools/cluster up` leaves it: its TOML
/// files, plus what up makes and git never holds: the pki/ folder (tools/pki),
/// the federation key, each carrier's keyring, admin key and Redis password.
/// One copy per deployment and test process, removed at exit.
fs::path prepared_example(const std::string& deployment) {
  struct copies {
    std::map<std::string, fs::path> made;
    ~copies() {
      for (const auto& [name, dir] : made)
        fs::remove_all(dir);
    }
  };
  static copies all;
  if (auto found = all.made.find(deployment); found != all.made.end())
    return found->second;
  std::string pattern = (fs::temp_directory_path() / "simsync-example-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot make a temporary folder");
  fs::path dir = pattern;
  std::map<std::string, std::vector<std::string>> nodes; // carrier -> its nodes
  static const std::regex carrier_line{R"re((?:^|\n)carrier = "([^"]+)")re"};
  static const std::regex node_line{R"re((?:^|\n)node = "([^"]+)")re"};
  for (const auto& entry : fs::directory_iterator{examples_dir / deployment}) {
    auto name = entry.path().filename().string();
    if (!entry.is_regular_file() || entry.path().extension() != ".toml")
      continue; // keys and passwords a developer's up made there: written below
    fs::copy_file(entry.path(), dir / name);
    std::ifstream in(entry.path());
    std::string text{std::istreambuf_iterator<char>{in}, {}};
    std::smatch carrier, node;
    if (std::regex_search(text, carrier, carrier_line) &&
        std::regex_search(text, node, node_line)) {
      nodes[carrier[1]].push_back(node[1]);
      std::ofstream(dir / (carrier[1].str() + ".admin.key"))
          << std::string(43, 'k') << "\n";
      std::ofstream(dir / (carrier[1].str() + ".redis.password"))
          << std::string(43, 'r') << "\n";
      std::ofstream(dir / (carrier[1].str() + ".seal.key"))
          << "writer = 1\nlookup = \"" << std::string(64, '1') << "\"\n[keys]\n1 = \""
          << std::string(64, '2') << "\"\n";
    }
  }
  std::ofstream(dir / "federation.key") << std::string(64, 'f');
  auto command = (examples_dir.parent_path().parent_path() / "tools" / "pki").string() +
                 " init " + (dir / "pki").string();
  for (const auto& [carrier, ids] : nodes) {
    command += " " + carrier + ":";
    for (std::size_t i = 0; i < ids.size(); ++i)
      command += (i ? "," : "") + ids[i];
  }
  command += " >/dev/null";
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error("tools/pki init failed: " + command);
  all.made[deployment] = dir;
  return dir;
}

/// An example file loaded as carrierd would after `tools/cluster up`.
load_result load_example(const std::string& deployment, const std::string& file) {
  auto path = prepared_example(deployment) / file;
  std::vector<std::string> args{"carrierd", "--config", path.string()};
  std::vector<const char*> argv;
  for (const auto& a : args)
    argv.push_back(a.c_str());
  return load_node_config(static_cast<int>(argv.size()), argv.data());
}

std::vector<std::string> example_files(const std::string& deployment) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator{examples_dir / deployment})
    if (entry.path().extension() == ".toml")
      files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

/// Checks that what each file says about its peers is what the peers' own
/// files say about themselves.
void expect_consistent(const std::vector<node_config>& configs) {
  for (const auto& config : configs) {
    for (const auto& peer : config.peers) {
      SCOPED_TRACE(config.carrier + "/" + config.node + " -> " + peer.id);
      bool found = false;
      for (const auto& other : configs) {
        if (other.carrier != peer.id)
          continue;
        found = true;
        EXPECT_EQ(peer.shards, other.shards);
        ASSERT_EQ(peer.nodes.size(), other.nodes.size());
        for (std::size_t i = 0; i < peer.nodes.size(); ++i) {
          EXPECT_EQ(peer.nodes[i].id, other.nodes[i].id);
          EXPECT_EQ(peer.nodes[i].federation.to_string(),
                    other.nodes[i].federation.to_string());
          EXPECT_EQ(peer.nodes[i].shards, other.nodes[i].shards);
        }
      }
      EXPECT_TRUE(found);
    }
  }
}

TEST(config_examples, every_file_loads_and_the_files_agree) {
  std::set<int> ports; // both deployments run at once, so no port is used twice
  for (const std::string deployment : {"three-carriers", "two-node-carrier"}) {
    std::vector<node_config> configs;
    for (const auto& file : example_files(deployment)) {
      SCOPED_TRACE(deployment + "/" + file);
      auto result = load_example(deployment, file);
      ASSERT_TRUE(result.config) << result.error;
      const auto& config = *result.config;
      EXPECT_EQ(missing_credentials(config), ""); // carrierd would start
      if (config.self().cluster.port != 0) {
        EXPECT_TRUE(ports.insert(config.self().cluster.port).second)
            << "port " << config.self().cluster.port << " used twice";
      }
      EXPECT_EQ(config.peers.size(), 2u);
      EXPECT_EQ(config.federation_key.size(), 64u);
      EXPECT_EQ(config.keys.seal_keys().at(1).size(), 32u);
      EXPECT_TRUE(fs::path{config.data_dir}.is_absolute());
      EXPECT_EQ(config.federation.to_string(), config.self().federation.to_string());
      auto redis_port =
          std::stoi(config.redis_address.substr(config.redis_address.rfind(':') + 1));
      for (int port :
           {redis_port, config.gateway.port, config.admin.port, config.federation.port})
        EXPECT_TRUE(ports.insert(port).second) << "port " << port << " used twice";
      configs.push_back(config);
    }
    EXPECT_EQ(configs.size(), deployment == "three-carriers" ? 3u : 4u);
    expect_consistent(configs);
  }
}

TEST(config_examples, two_node_carrier_splits_the_shards) {
  auto a2 = load_example("two-node-carrier", "carrier-a-a2.toml");
  ASSERT_TRUE(a2.config) << a2.error;
  EXPECT_EQ(a2.config->owned_shards(), (std::vector<int>{2, 3}));
  EXPECT_EQ(a2.config->federation.to_string(), "127.0.0.1:27002");
  EXPECT_EQ(a2.config->self().cluster.to_string(), "127.0.0.1:27102");
  EXPECT_EQ(owner_of(a2.config->nodes, 1).cluster.to_string(), "127.0.0.1:27101");
  EXPECT_EQ(owner_of(a2.config->nodes, 1).id, "a1");
  auto copy = prepared_example("two-node-carrier");
  EXPECT_EQ(a2.config->data_dir,
            (copy / "data" / "carrier-a" / "a2").lexically_normal().string());
  EXPECT_EQ(a2.config->cluster_tls.certificate_file,
            (copy / "pki" / "carrier-a" / "a2.cluster.pem").lexically_normal().string());
}

// -- defaults and overrides ----------------------------------------------------

TEST_F(config_test, defaults_fill_what_the_file_leaves_out) {
  auto config = loaded(load(base_toml));
  EXPECT_EQ(config.carrier, "carrier-a");
  EXPECT_EQ(config.node, "a1");
  EXPECT_EQ(config.shards, 4);
  EXPECT_EQ(config.log_level, logging::level::info);
  EXPECT_EQ(config.log_format, logging::format::text);
  EXPECT_EQ(config.redis_address, "127.0.0.1:6380");
  EXPECT_EQ(config.redis_user, "simsync");
  EXPECT_EQ(config.redis_password, ""); // missing_credentials stops carrierd
  EXPECT_EQ(config.gateway.to_string(), "127.0.0.1:8080");
  EXPECT_EQ(config.admin.to_string(), "127.0.0.1:9090");
  EXPECT_TRUE(config.metrics);
  EXPECT_EQ(config.max_replication_lag, std::chrono::milliseconds{2000});
  EXPECT_EQ(config.max_in_flight, 1000);
  EXPECT_EQ(config.federation.to_string(), "127.0.0.1:7001");
  ASSERT_EQ(config.nodes.size(), 1u);
  EXPECT_EQ(config.self().id, "a1");
  EXPECT_EQ(config.owned_shards(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(config.peers.empty());
  EXPECT_EQ(config.federation_key, "federation-key-of-the-tests");
  EXPECT_EQ(config.keys.seal_keys().at(1), raw_seal_key);
  EXPECT_EQ(config.data_dir, (dir_ / "data" / "carrier-a" / "a1").string());
  EXPECT_EQ(config.admin_key, "");
  EXPECT_EQ(config.sms.kind, "none");
  EXPECT_EQ(config.sms.url, "");
  EXPECT_EQ(config.sms.timeout, std::chrono::milliseconds{2000});
  EXPECT_EQ(config.sms.attempts, 3);
  EXPECT_EQ(config.sms.token, "");
  EXPECT_EQ(config.registration.code_ttl, std::chrono::seconds{300});
  EXPECT_EQ(config.registration.max_code_attempts, 5);
  EXPECT_EQ(config.registration.codes_per_msisdn, 3);
  EXPECT_EQ(config.registration.code_window, std::chrono::seconds{600});
  EXPECT_EQ(config.registration.requests_per_address, 30);
  EXPECT_EQ(config.registration.address_window, std::chrono::seconds{60});
}

TEST_F(config_test, options_override_the_file) {
  auto file = "shards = 8\nlog_level = \"warn\"\ndata_dir = \"from-file\"\n" + base_toml;
  write("other-federation.key", "another-federation-key");
  write("other-seal.key", std::string(64, 'f') + "\n");
  auto config = loaded(load(file, {"--carrier",
                                   "carrier-z",
                                   "--node=z9",
                                   "--shards",
                                   "2",
                                   "--log-level=debug",
                                   "--redis",
                                   "unix:/run/redis.sock",
                                   "--gateway",
                                   "0.0.0.0:1",
                                   "--admin",
                                   "[::1]:65535",
                                   "--metrics=off",
                                   "--max-replication-lag-ms",
                                   "0",
                                   "--max-in-flight",
                                   "64",
                                   "--federation",
                                   "10.0.0.1:7777",
                                   "--federation-key-file",
                                   (dir_ / "other-federation.key").string(),
                                   "--seal-key-file",
                                   (dir_ / "other-seal.key").string(),
                                   "--data-dir",
                                   "/var/lib/simsync"}));
  EXPECT_EQ(config.carrier, "carrier-z");
  EXPECT_EQ(config.node, "z9");
  EXPECT_EQ(config.shards, 2);
  EXPECT_EQ(config.owned_shards(), (std::vector<int>{0, 1}));
  EXPECT_EQ(config.log_level, logging::level::debug);
  EXPECT_EQ(config.redis_address, "unix:/run/redis.sock");
  EXPECT_EQ(config.gateway.host, "0.0.0.0");
  EXPECT_EQ(config.gateway.port, 1);
  EXPECT_EQ(config.admin.host, "::1");
  EXPECT_EQ(config.admin.to_string(), "[::1]:65535");
  EXPECT_FALSE(config.metrics);
  EXPECT_EQ(config.max_replication_lag, std::chrono::milliseconds{0});
  EXPECT_EQ(config.max_in_flight, 64);
  EXPECT_EQ(config.federation.to_string(), "10.0.0.1:7777");
  EXPECT_EQ(config.federation_key, "another-federation-key");
  EXPECT_EQ(config.keys.seal_keys().at(1), std::string(32, '\xff'));
  EXPECT_EQ(config.data_dir, "/var/lib/simsync");
}

TEST_F(config_test, the_last_of_a_repeated_option_wins) {
  auto config = loaded(load(base_toml, {"--shards", "3", "--shards", "5"}));
  EXPECT_EQ(config.shards, 5);
}

TEST_F(config_test, relative_paths_follow_the_file_or_the_working_directory) {
  fs::create_directory(dir_ / "keys");
  write("keys/fed.key", "a-federation-key-in-a-subfolder");
  auto file = replaced(base_toml, "\"federation.key\"", "\"keys/fed.key\"");
  auto previous = fs::current_path();
  fs::current_path(dir_ / "keys");
  auto result = load(file, {"--data-dir", "run", "--seal-key-file", "../seal.key"});
  fs::current_path(previous);
  auto config = loaded(result);
  EXPECT_EQ(config.federation_key, "a-federation-key-in-a-subfolder");
  EXPECT_EQ(config.keys.seal_keys().at(1), raw_seal_key);
  EXPECT_EQ(config.data_dir, (dir_ / "keys" / "run").string());
}

TEST_F(config_test, everything_can_come_from_options_alone) {
  auto config =
      loaded(load_args({"carrierd", "--carrier", "c", "--node", "n", "--redis", "r:1",
                        "--gateway", "g:2", "--admin", "a:3", "--federation", "f:4",
                        "--federation-key-file", (dir_ / "federation.key").string(),
                        "--seal-key-file", (dir_ / "seal.key").string()}));
  EXPECT_EQ(config.federation.to_string(), "f:4");
  EXPECT_EQ(config.data_dir, (fs::current_path() / "data" / "c" / "n").string());
}

// -- admin key, sms, registration ------------------------------------------------

const std::string admin_key = "Zq3x-admin-key-of-the-tests_0123456789"; // 38 characters

/// base_toml with `lines` added to its [admin] table.
std::string with_admin(const std::string& lines) {
  return replaced(base_toml, "listen = \"127.0.0.1:9090\"\n",
                  "listen = \"127.0.0.1:9090\"\n" + lines);
}

const std::string sms_http = R"(
[sms]
kind = "http"
url = "https://sms.example.net:8443/v1/send?route=cn"
timeout_ms = 750
attempts = 5
token_file = "keys/sms.token"
)";

const std::string registration_table = R"(
[registration]
code_ttl_seconds = 120
max_code_attempts = 4
codes_per_msisdn = 2
code_window_seconds = 900
requests_per_address = 10
address_window_seconds = 30
)";

TEST_F(config_test, the_admin_key_file_is_read_trimmed_next_to_the_file) {
  fs::create_directory(dir_ / "keys");
  write("keys/admin.key", " \n" + admin_key + "\r\n\n");
  auto config = loaded(load(with_admin("key_file = \"keys/admin.key\"\n")));
  EXPECT_EQ(config.admin_key, admin_key);

  // As an option, relative to the working directory.
  write("other-admin.key", std::string(32, 'k'));
  auto previous = fs::current_path();
  fs::current_path(dir_ / "keys");
  auto result = load(base_toml, {"--admin-key-file", "../other-admin.key"});
  fs::current_path(previous);
  EXPECT_EQ(loaded(result).admin_key, std::string(32, 'k'));
}

TEST_F(config_test, sms_and_registration_are_read) {
  fs::create_directory(dir_ / "keys");
  write("keys/sms.token", "sms-provider-token\n");
  auto config = loaded(load(base_toml + sms_http + registration_table));
  EXPECT_EQ(config.sms.kind, "http");
  EXPECT_EQ(config.sms.url, "https://sms.example.net:8443/v1/send?route=cn");
  EXPECT_EQ(config.sms.timeout, std::chrono::milliseconds{750});
  EXPECT_EQ(config.sms.attempts, 5);
  EXPECT_EQ(config.sms.token, "sms-provider-token");
  EXPECT_EQ(config.registration.code_ttl, std::chrono::seconds{120});
  EXPECT_EQ(config.registration.max_code_attempts, 4);
  EXPECT_EQ(config.registration.codes_per_msisdn, 2);
  EXPECT_EQ(config.registration.code_window, std::chrono::seconds{900});
  EXPECT_EQ(config.registration.requests_per_address, 10);
  EXPECT_EQ(config.registration.address_window, std::chrono::seconds{30});

  for (const std::string url : {"http://127.0.0.1:9999/sms", "http://localhost",
                                "https://[::1]/sms", "http://gw.example:80?x=1"}) {
    auto file = replaced(base_toml + sms_http,
                         "https://sms.example.net:8443/v1/send?route=cn", url);
    EXPECT_EQ(loaded(load(file)).sms.url, url);
  }
}

TEST_F(config_test, sms_and_registration_options_override_the_file) {
  write("sms.token", "token-from-an-option");
  auto config = loaded(load(base_toml + "\n[sms]\nkind = \"file\"\n" + registration_table,
                            {"--sms",
                             "http",
                             "--sms-url",
                             "http://127.0.0.1:1/send",
                             "--sms-timeout-ms=100",
                             "--sms-attempts",
                             "1",
                             "--sms-token-file",
                             (dir_ / "sms.token").string(),
                             "--code-ttl-seconds",
                             "60",
                             "--max-code-attempts",
                             "3",
                             "--codes-per-msisdn",
                             "1",
                             "--code-window-seconds",
                             "3600",
                             "--requests-per-address",
                             "1000",
                             "--address-window-seconds",
                             "1"}));
  EXPECT_EQ(config.sms.kind, "http");
  EXPECT_EQ(config.sms.url, "http://127.0.0.1:1/send");
  EXPECT_EQ(config.sms.timeout, std::chrono::milliseconds{100});
  EXPECT_EQ(config.sms.attempts, 1);
  EXPECT_EQ(config.sms.token, "token-from-an-option");
  EXPECT_EQ(config.registration.code_ttl, std::chrono::seconds{60});
  EXPECT_EQ(config.registration.max_code_attempts, 3);
  EXPECT_EQ(config.registration.codes_per_msisdn, 1);
  EXPECT_EQ(config.registration.code_window, std::chrono::seconds{3600});
  EXPECT_EQ(config.registration.requests_per_address, 1000);
  EXPECT_EQ(config.registration.address_window, std::chrono::seconds{1});
}

TEST_F(config_test, url_and_token_file_are_read_for_http_only) {
  // A file deployment keeps its http settings, even a missing token file,
  // so that switching kind is a one-word change.
  auto config = loaded(load(base_toml + sms_http, {"--sms", "file"}));
  EXPECT_EQ(config.sms.kind, "file");
  EXPECT_EQ(config.sms.url, "");
  EXPECT_EQ(config.sms.token, "");
  EXPECT_EQ(config.sms.attempts, 5);
}

TEST_F(config_test, a_hex_seal_key_is_decoded) {
  write("seal.key", "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F");
  auto config = loaded(load(base_toml));
  ASSERT_EQ(config.keys.seal_keys().at(1).size(), 32u);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(static_cast<unsigned char>(config.keys.seal_keys().at(1)[i]), i);
}

TEST_F(config_test, help_lists_every_option_with_its_default) {
  auto result = load_args({"/usr/bin/carrierd", "--shards", "bad", "--help"});
  EXPECT_TRUE(result.help);
  EXPECT_FALSE(result.config);
  EXPECT_EQ(result.error, "");
  EXPECT_TRUE(starts_with(result.help_text, "usage: carrierd "));
  for (const char* option : {"--config",
                             "--carrier",
                             "--node",
                             "--shards",
                             "--log-level",
                             "--redis",
                             "--gateway",
                             "--admin",
                             "--federation",
                             "--federation-key-file",
                             "--seal-key-file",
                             "--data-dir",
                             "--help",
                             "default: 4",
                             "default: info",
                             "redis.address",
                             "--redis-user",
                             "--redis-password-file",
                             "redis.password_file",
                             "--admin-key-file",
                             "admin.key_file",
                             "--sms",
                             "sms.kind",
                             "--sms-url",
                             "--sms-timeout-ms",
                             "--sms-attempts",
                             "--sms-token-file",
                             "--code-ttl-seconds",
                             "--max-code-attempts",
                             "--codes-per-msisdn",
                             "--code-window-seconds",
                             "--requests-per-address",
                             "--address-window-seconds",
                             "registration.code_ttl_seconds"})
    EXPECT_NE(result.help_text.find(option), std::string::npos) << option;
}

// -- errors ----------------------------------------------------------------------

struct error_case {
  std::string toml;
  std::vector<std::string> args;
  std::string expected; ///< the error starts with this
};

TEST_F(config_test, each_bad_value_is_named_in_the_error) {
  const auto with_nodes = base_without_federation() + two_nodes;
  const std::vector<error_case> cases = {
      {replaced(base_toml, "127.0.0.1:6380", "foo"),
       {},
       "config error: redis.address: expected host:port or unix:/path, got \"foo\""},
      {replaced(base_toml, "127.0.0.1:6380", "unix:relative.sock"),
       {},
       "config error: redis.address: "},
      {base_toml, {"--redis", "foo"}, "config error: --redis: expected host:port"},
      {base_toml,
       {"--shards", "abc"},
       "config error: --shards: expected a positive integer"},
      {base_toml,
       {"--shards", "0"},
       "config error: --shards: expected a positive integer"},
      {base_toml,
       {"--shards", "2000"},
       "config error: --shards: expected 1..1024, got 2000"},
      {"shards = 0\n" + base_toml, {}, "config error: shards: expected 1..1024, got 0"},
      {"shards = \"4\"\n" + base_toml,
       {},
       "config error: shards: expected an integer, got string"},
      {replaced(base_toml, "carrier-a", "Carrier_A"),
       {},
       "config error: carrier: expected 1 to 32"},
      {replaced(base_toml, "carrier-a", std::string(33, 'a')),
       {},
       "config error: carrier: "},
      {base_toml, {"--node", ""}, "config error: --node: expected 1 to 32"},
      {replaced(base_toml, "node = \"a1\"\n", ""),
       {},
       "config error: node: missing (set it in the file or with --node)"},
      {"log_level = \"loud\"\n" + base_toml,
       {},
       "config error: log_level: expected trace,"},
      {base_toml, {"--log-level", "verbose"}, "config error: --log-level: "},
      {"log_format = \"xml\"\n" + base_toml,
       {},
       "config error: log_format: expected text or json, got \"xml\""},
      {replaced(base_toml, "127.0.0.1:8080", "127.0.0.1:0"),
       {},
       "config error: gateway.listen: expected host:port"},
      {replaced(base_toml, "127.0.0.1:9090", "127.0.0.1:65536"),
       {},
       "config error: admin.listen: "},
      {replaced(base_toml, "127.0.0.1:9090", "::1:9090"),
       {},
       "config error: admin.listen: "},
      {replaced(base_toml, "127.0.0.1:9090", ":9090"),
       {},
       "config error: admin.listen: "},
      {base_toml, {"--admin", "nohost"}, "config error: --admin: expected host:port"},
      {replaced(base_toml, "listen = \"127.0.0.1:9090\"",
                "listen = \"127.0.0.1:9090\"\nmetrics = \"yes\""),
       {},
       "config error: admin.metrics: expected true or false"},
      {base_toml, {"--metrics", "yes"}, "config error: --metrics: expected on or off"},
      {replaced(base_toml, "listen = \"127.0.0.1:8080\"",
                "listen = \"127.0.0.1:8080\"\nmax_replication_lag_ms = -1"),
       {},
       "config error: gateway.max_replication_lag_ms: expected 0 or more, got -1"},
      {replaced(base_toml, "listen = \"127.0.0.1:8080\"",
                "listen = \"127.0.0.1:8080\"\nmax_replication_lag_ms = \"2s\""),
       {},
       "config error: gateway.max_replication_lag_ms: expected an integer"},
      {base_toml,
       {"--max-replication-lag-ms", "2s"},
       "config error: --max-replication-lag-ms: expected a number, got \"2s\""},
      {base_toml,
       {"--max-in-flight", "0"},
       "config error: --max-in-flight: expected 1..1000000, got 0"},
      {replaced(base_toml, "listen = \"127.0.0.1:8080\"",
                "listen = \"127.0.0.1:8080\"\nmax_in_flight = 1.5"),
       {},
       "config error: gateway.max_in_flight: expected an integer"},
      {base_toml, {"--gateway", "host:80x"}, "config error: --gateway: "},
      {base_without_federation(), {}, "config error: federation.listen: missing"},
      {replaced(base_toml, "[redis]\naddress = \"127.0.0.1:6380\"\n", ""),
       {},
       "config error: redis.address: missing (set it in the file or with --redis)"},
      {replaced(base_toml, "[redis]\naddress", "redis"),
       {},
       "config error: redis: expected a table"},
      {replaced(base_toml, "[gateway]", "[gatway]"),
       {},
       "config error: gatway: unknown key"},
      {replaced(base_toml, "listen = \"127.0.0.1:8080\"", "port = 8080"),
       {},
       "config error: gateway.port: unknown key"},
      {replaced(base_toml, "federation.key", "absent.key"),
       {},
       "config error: federation_key_file: \"" + (dir_ / "absent.key").string() +
           "\" does not exist"},
      {base_toml, {"--seal-key-file", dir_.string()}, "config error: --seal-key-file: "},
      {base_toml, {"--data-dir", ""}, "config error: --data-dir: expected a path"},
      {base_toml, {"--bogus", "1"}, "config error: --bogus: unknown option"},
      {base_toml, {"stray"}, "config error: stray: unknown option"},
      {base_toml, {"--redis"}, "config error: --redis: missing value"},
      {"carrier = \n", {}, "config error: " + (dir_ / "config.toml").string() + ":1:"},
      {with_nodes + "\n[federation]\nlisten = \"127.0.0.1:7001\"\n",
       {},
       "config error: federation.listen: not allowed with [[nodes]]"},
      {base_toml + peer_b,
       {"--carrier", "carrier-b"},
       "config error: peers[0].id: \"carrier-b\" is this carrier"},
      {base_toml + peer_b + peer_b,
       {},
       "config error: peers[1].id: peer id \"carrier-b\" is used twice"},
      {base_toml + "[[peers]]\nid = \"carrier-b\"\n",
       {},
       "config error: peers[0].nodes: missing"},
      {base_toml + replaced(peer_b, "127.0.0.1:7101", "b:0"),
       {},
       "config error: peers[0].nodes[0].federation: "},
      {base_toml + replaced(peer_b, "id = \"b1\"", "id = \"b1\"\nport = 1"),
       {},
       "config error: peers[0].nodes[0].port: unknown key"},
      {"peers = 3\n" + base_toml, {}, "config error: peers: expected an array of tables"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected);
    auto result = load(c.toml, c.args);
    EXPECT_FALSE(result.config);
    EXPECT_TRUE(starts_with(result.error, c.expected)) << "got: " << result.error;
  }
}

TEST_F(config_test, bad_admin_sms_and_registration_values_are_named) {
  fs::create_directory(dir_ / "keys");
  write("keys/sms.token", "sms-provider-token");
  const auto http = base_toml + sms_http;
  const auto url = "https://sms.example.net:8443/v1/send?route=cn";
  const std::vector<error_case> cases = {
      {with_admin("key_file = \"absent.key\"\n"),
       {},
       "config error: admin.key_file: \"" + (dir_ / "absent.key").string() +
           "\" does not exist"},
      {base_toml,
       {"--admin-key-file", (dir_ / "absent.key").string()},
       "config error: --admin-key-file: \""},
      {with_admin("key_file = \"short.key\"\n"),
       {},
       "config error: admin.key_file: the key must be at least 32 characters "
       "(whitespace trimmed), the file holds 31"},
      {with_admin("key_file = \"blank.key\"\n"),
       {},
       "config error: admin.key_file: the file holds no token"},
      {with_admin("key_file = \"spaced.key\"\n"),
       {},
       "config error: admin.key_file: the token must be one word"},
      {with_admin("key_file = \"\"\n"),
       {},
       "config error: admin.key_file: expected a path"},
      {with_admin("key_file = 32\n"),
       {},
       "config error: admin.key_file: expected a string, got integer"},
      {base_toml + "\n[sms]\nkind = \"smtp\"\n",
       {},
       "config error: sms.kind: expected none, file or http, got \"smtp\""},
      {base_toml,
       {"--sms", "carrier-pigeon"},
       "config error: --sms: expected none, file"},
      {base_toml + "\n[sms]\nkind = \"http\"\n",
       {},
       "config error: sms.url: missing: required when sms.kind is \"http\""},
      {base_toml, {"--sms", "http"}, "config error: sms.url: missing"},
      {replaced(http, url, "ftp://sms.example.net/send"),
       {},
       "config error: sms.url: expected an http:// or https:// URL, got "
       "\"ftp://sms.example.net/send\""},
      {replaced(http, url, "sms.example.net/send"),
       {},
       "config error: sms.url: expected an http:// or https:// URL"},
      {replaced(http, url, "http:///send"), {}, "config error: sms.url: expected a host"},
      {replaced(http, url, "http://gw:0/send"),
       {},
       "config error: sms.url: expected a host"},
      {replaced(http, url, "http://gw:99999"),
       {},
       "config error: sms.url: expected a host"},
      {replaced(http, url, "http://gw/send me"),
       {},
       "config error: sms.url: expected a URL without spaces"},
      {replaced(http, url, "http://user:pw@gw/send"),
       {},
       "config error: sms.url: credentials in the URL are not supported"},
      {http, {"--sms-url", "gw:80"}, "config error: --sms-url: expected an http://"},
      {replaced(http, "timeout_ms = 750", "timeout_ms = 0"),
       {},
       "config error: sms.timeout_ms: expected 1..600000, got 0"},
      {replaced(http, "timeout_ms = 750", "timeout_ms = \"1s\""),
       {},
       "config error: sms.timeout_ms: expected an integer, got string"},
      {http,
       {"--sms-timeout-ms", "-5"},
       "config error: --sms-timeout-ms: expected a number"},
      {replaced(http, "attempts = 5", "attempts = -1"),
       {},
       "config error: sms.attempts: expected 1..100, got -1"},
      {http,
       {"--sms-attempts", "0"},
       "config error: --sms-attempts: expected 1..100, got 0"},
      {replaced(http, "keys/sms.token", "keys/absent.token"),
       {},
       "config error: sms.token_file: \"" + (dir_ / "keys" / "absent.token").string() +
           "\" does not exist"},
      {replaced(http, "keys/sms.token", "blank.key"),
       {},
       "config error: sms.token_file: the file holds no token"},
      {replaced(http, "attempts = 5", "retries = 5"),
       {},
       "config error: sms.retries: unknown key"},
      {"sms = \"file\"\n" + base_toml, {}, "config error: sms: expected a table"},
      {base_toml +
           replaced(registration_table, "code_ttl_seconds = 120", "code_ttl_seconds = 0"),
       {},
       "config error: registration.code_ttl_seconds: expected 1..86400, got 0"},
      {base_toml + replaced(registration_table, "max_code_attempts = 4",
                            "max_code_attempts = -4"),
       {},
       "config error: registration.max_code_attempts: expected 1..1000, got -4"},
      {base_toml +
           replaced(registration_table, "codes_per_msisdn = 2", "codes_per_msisdn = 0"),
       {},
       "config error: registration.codes_per_msisdn: expected 1..1000, got 0"},
      {base_toml + replaced(registration_table, "code_window_seconds = 900",
                            "code_window_seconds = 0"),
       {},
       "config error: registration.code_window_seconds: expected 1..604800, got 0"},
      {base_toml + replaced(registration_table, "requests_per_address = 10",
                            "requests_per_address = 0"),
       {},
       "config error: registration.requests_per_address: expected 1..1000000, got 0"},
      {base_toml + replaced(registration_table, "address_window_seconds = 30",
                            "address_window_seconds = 86401"),
       {},
       "config error: registration.address_window_seconds: expected 1..86400, got 86401"},
      {base_toml,
       {"--code-ttl-seconds", "0"},
       "config error: --code-ttl-seconds: expected 1..86400, got 0"},
      {base_toml,
       {"--requests-per-address", "many"},
       "config error: --requests-per-address: expected a number"},
      {base_toml + replaced(registration_table, "code_ttl_seconds", "ttl_seconds"),
       {},
       "config error: registration.ttl_seconds: unknown key"},
  };
  write("short.key", std::string(31, 'k') + "\n");
  write("blank.key", " \n\t\n");
  write("spaced.key", std::string(20, 'k') + " " + std::string(20, 'k'));
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected);
    auto result = load(c.toml, c.args);
    EXPECT_FALSE(result.config);
    EXPECT_TRUE(starts_with(result.error, c.expected)) << "got: " << result.error;
  }
}

TEST_F(config_test, key_files_are_checked_for_size) {
  write("federation.key", std::string(15, 'k'));
  EXPECT_TRUE(
      starts_with(load(base_toml).error,
                  "config error: federation_key_file: the key must be at least 16 "
                  "bytes, the file holds 15"));
  write("federation.key", std::string(16, 'k'));
  for (const auto& bad_seal :
       {std::string(31, 's'), std::string(33, 's'), std::string(63, 'a'),
        std::string(64, 'g'), std::string(64, 'a') + " \n"}) {
    write("seal.key", bad_seal);
    EXPECT_TRUE(starts_with(load(base_toml).error,
                            "config error: seal_key_file: expected 32 raw bytes, 64 hex "
                            "digits or a TOML keyring"))
        << bad_seal.size();
  }
  write("seal.key", std::string(64, 'a') + "\r\n");
  EXPECT_EQ(load(base_toml).error, "");
}

// -- shard partition ---------------------------------------------------------------

TEST_F(config_test, nodes_partition_the_shards) {
  auto config = loaded(load(base_without_federation() + two_nodes, {"--node", "a2"}));
  ASSERT_EQ(config.nodes.size(), 2u);
  EXPECT_EQ(config.owned_shards(), (std::vector<int>{2, 3})); // sorted
  EXPECT_EQ(config.federation.to_string(), "127.0.0.1:7002");
  EXPECT_EQ(owner_of(config.nodes, 0).id, "a1");
  EXPECT_EQ(owner_of(config.nodes, 3).id, "a2");
  EXPECT_THROW(owner_of(config.nodes, 4), std::out_of_range);
}

TEST_F(config_test, the_federation_option_moves_this_node_only) {
  auto config = loaded(
      load(base_without_federation() + two_nodes, {"--federation", "127.0.0.1:7555"}));
  EXPECT_EQ(config.federation.to_string(), "127.0.0.1:7555");
  EXPECT_EQ(config.self().federation.to_string(), "127.0.0.1:7555");
  EXPECT_EQ(config.nodes[1].federation.to_string(), "127.0.0.1:7002");
}

TEST_F(config_test, bad_partitions_are_rejected) {
  const auto base = base_without_federation();
  const std::vector<error_case> cases = {
      {base + replaced(two_nodes, "[3, 2]", "[2]"),
       {},
       "config error: nodes: shard 3 of 0..3 is owned by no node"},
      {base + replaced(two_nodes, "[3, 2]", "[1, 2, 3]"),
       {},
       "config error: nodes[1].shards: shard 1 is also owned by nodes[0]"},
      {base + replaced(two_nodes, "[0, 1]", "[0, 0, 1]"),
       {},
       "config error: nodes[0].shards: shard 0 is also owned by nodes[0]"},
      {base + replaced(two_nodes, "[3, 2]", "[2, 3, 4]"),
       {},
       "config error: nodes[1].shards: shard 4 is outside 0..3"},
      {base + replaced(two_nodes, "[0, 1]", "[-1, 0, 1]"),
       {},
       "config error: nodes[0].shards: shard -1 is outside 0..3"},
      {base + replaced(two_nodes, "[3, 2]", "[]"),
       {},
       "config error: nodes[1].shards: empty"},
      {base + replaced(two_nodes, "[3, 2]", "[\"2\", 3]"),
       {},
       "config error: nodes[1].shards: expected shard numbers, got string"},
      {base + replaced(two_nodes, "shards = [3, 2]\n", ""),
       {},
       "config error: nodes[1].shards: missing"},
      {base + two_nodes,
       {"--shards", "5"},
       "config error: nodes: shard 4 of 0..4 is owned by no node"},
      {base + two_nodes,
       {"--node", "a3"},
       "config error: --node: \"a3\" is not one of the [[nodes]]"},
      {base + replaced(two_nodes, "\"a2\"", "\"a1\""),
       {},
       "config error: nodes[1].id: node id \"a1\" is used twice"},
      {base + replaced(two_nodes, "127.0.0.1:7002", "127.0.0.1"),
       {},
       "config error: nodes[1].federation: expected host:port"},
      {base + "[[nodes]]\nid = \"a1\"\nfederation = \"h:1\"\nshards = [0, 1, 2, 3]\n" +
           replaced(peer_b, "[0, 1]", "[1]"),
       {},
       "config error: peers[0].nodes: shard 0 of 0..1 is owned by no node"},
      {base_toml + replaced(peer_b, "shards = 2", "shards = 1"),
       {},
       "config error: peers[0].nodes[0].shards: shard 1 is outside 0..0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected);
    auto result = load(c.toml, c.args);
    EXPECT_FALSE(result.config);
    EXPECT_TRUE(starts_with(result.error, c.expected)) << "got: " << result.error;
  }
}

// -- shard_of ----------------------------------------------------------------------

TEST(shard_of, reads_the_first_eight_hex_digits) {
  const std::string tail(56, 'f');
  EXPECT_EQ(shard_of("0000000a" + tail, 4), 2);
  EXPECT_EQ(shard_of("0000000a" + tail, 1), 0);
  EXPECT_EQ(shard_of("ffffffff" + tail, 1024), 1023);
  EXPECT_EQ(shard_of("FFFFFFFF", 1000), static_cast<int>(4294967295u % 1000));
  EXPECT_EQ(shard_of("12345678" + tail, 7), 0x12345678 % 7);
  EXPECT_EQ(shard_of("12345678" + tail, 7),
            shard_of("12345678" + std::string(56, '0'), 7));
}

TEST(shard_of, stays_in_range_and_spreads_evenly) {
  std::mt19937_64 random{42}; // fixed seed: the test is deterministic
  const char* digits = "0123456789abcdef";
  for (int shards : {1, 2, 3, 4, 16, 1024}) {
    std::vector<int> counts(static_cast<std::size_t>(shards));
    const int samples = 64 * shards;
    for (int i = 0; i < samples; ++i) {
      std::string idcode;
      for (int d = 0; d < 64; ++d)
        idcode += digits[random() % 16];
      int shard = shard_of(idcode, shards);
      ASSERT_GE(shard, 0);
      ASSERT_LT(shard, shards);
      ASSERT_EQ(shard, shard_of(idcode, shards));
      ++counts[static_cast<std::size_t>(shard)];
    }
    if (shards <= 16) {
      for (int count : counts)
        EXPECT_GT(count, 32) << shards << " shards";
    }
  }
}

TEST(shard_of_line, is_fnv1a_of_the_line_id_and_stays_in_range) {
  // FNV-1a of "a" is 0xe40c292c (the published test vector).
  EXPECT_EQ(shard_of_line("a", 1 << 16), static_cast<int>(0xe40c292cu % (1u << 16)));
  EXPECT_EQ(shard_of_line("QmFzZTY0dXJsTGluZUlkMA", 1), 0);
  EXPECT_THROW(shard_of_line("QmFzZTY0dXJsTGluZUlkMA", 0), std::invalid_argument);
  std::vector<int> seen(4, 0);
  for (int i = 0; i < 4000; ++i) {
    int shard = shard_of_line("line-" + std::to_string(10000000 + i), 4);
    ASSERT_GE(shard, 0);
    ASSERT_LT(shard, 4);
    ++seen[static_cast<std::size_t>(shard)];
  }
  for (int count : seen)
    EXPECT_GT(count, 800); // similar ids spread over every shard
}

TEST(shard_of, rejects_what_is_not_an_idcode) {
  EXPECT_THROW(shard_of("1234567", 4), std::invalid_argument);
  EXPECT_THROW(shard_of("1234567g" + std::string(56, '0'), 4), std::invalid_argument);
  EXPECT_THROW(shard_of("+1234567" + std::string(56, '0'), 4), std::invalid_argument);
  EXPECT_THROW(shard_of(std::string(64, '0'), 0), std::invalid_argument);
}

TEST_F(config_test, the_clock_skew_allowed_to_peers_is_read) {
  EXPECT_EQ(loaded(load(base_toml)).max_clock_skew, std::chrono::milliseconds{300'000});
  auto in_file = loaded(load(base_toml + "max_clock_skew_ms = 60000\n"));
  EXPECT_EQ(in_file.max_clock_skew, std::chrono::milliseconds{60'000});
  auto from_option = loaded(load(base_toml, {"--max-clock-skew-ms", "2000"}));
  EXPECT_EQ(from_option.max_clock_skew, std::chrono::milliseconds{2'000});
  // With [[nodes]], [federation] holds only the skew.
  auto with_nodes = loaded(load(base_without_federation() + two_nodes +
                                    "\n[federation]\nmax_clock_skew_ms = 9000\n",
                                {"--node", "a2"}));
  EXPECT_EQ(with_nodes.max_clock_skew, std::chrono::milliseconds{9'000});
  for (const auto* bad : {"999", "86400001", "-1"}) {
    auto result = load(base_toml + "max_clock_skew_ms = " + bad + "\n");
    EXPECT_FALSE(result.config) << bad;
    EXPECT_EQ(result.error.rfind("config error: federation.max_clock_skew_ms", 0), 0u)
        << result.error;
  }
}

TEST_F(config_test, the_pace_of_a_peer_lookups_is_read) {
  auto defaults = loaded(load(base_toml));
  EXPECT_EQ(defaults.lookups_per_second, 200u);
  EXPECT_EQ(defaults.lookup_burst, 2000u);
  auto in_file =
      loaded(load(base_toml + "lookups_per_second = 50\nlookup_burst = 300\n"));
  EXPECT_EQ(in_file.lookups_per_second, 50u);
  EXPECT_EQ(in_file.lookup_burst, 300u);
  auto from_options =
      loaded(load(base_toml, {"--lookups-per-second", "1000", "--lookup-burst", "4000"}));
  EXPECT_EQ(from_options.lookups_per_second, 1000u);
  EXPECT_EQ(from_options.lookup_burst, 4000u);
}

TEST_F(config_test, how_long_a_peer_window_waits_for_its_acknowledgements_is_read) {
  EXPECT_EQ(loaded(load(base_toml)).peer_ack_timeout, std::chrono::seconds{60});
  auto in_file = loaded(load(base_toml + "ack_timeout_seconds = 5\n"));
  EXPECT_EQ(in_file.peer_ack_timeout, std::chrono::seconds{5});
  auto from_option = loaded(load(base_toml, {"--ack-timeout-seconds", "120"}));
  EXPECT_EQ(from_option.peer_ack_timeout, std::chrono::seconds{120});
  for (const auto* bad : {"0", "3601", "-1", "\"60\""}) {
    auto result = load(base_toml + "ack_timeout_seconds = " + bad + "\n");
    EXPECT_FALSE(result.config) << bad;
    EXPECT_EQ(result.error.rfind("config error: federation.ack_timeout_seconds", 0), 0u)
        << result.error;
  }
}

// -- Redis credentials ------------------------------------------------------------

/// base_toml with `lines` added to its [redis] table.
std::string with_redis(const std::string& lines) {
  return replaced(base_toml, "address = \"127.0.0.1:6380\"\n",
                  "address = \"127.0.0.1:6380\"\n" + lines);
}

TEST_F(config_test, the_redis_password_file_is_read_without_its_final_newline) {
  fs::create_directory(dir_ / "keys");
  write("keys/redis.password", "s3cret pass-word\n");
  auto config = loaded(load(with_redis("password_file = \"keys/redis.password\"\n")));
  EXPECT_EQ(config.redis_user, "simsync"); // the default user
  EXPECT_EQ(config.redis_password, "s3cret pass-word");

  write("other.password", "other\r\n");
  auto options =
      loaded(load(base_toml, {"--redis-user", "carrierd", "--redis-password-file",
                              (dir_ / "other.password").string()}));
  EXPECT_EQ(options.redis_user, "carrierd");
  EXPECT_EQ(options.redis_password, "other");
  auto from_file = loaded(load(with_redis("user = \"node-a1\"\n")));
  EXPECT_EQ(from_file.redis_user, "node-a1");
}

TEST_F(config_test, a_missing_unreadable_or_empty_redis_password_file_is_named) {
  write("empty.password", "");
  write("newline.password", "\n");
  write("two-lines.password", "one\ntwo\n");
  write("secret.password", "never-shown-secret\n");
  fs::create_directory(dir_ / "a-folder");
  const std::vector<error_case> cases = {
      {with_redis("password_file = \"absent.password\"\n"),
       {},
       "config error: redis.password_file: \"" + (dir_ / "absent.password").string() +
           "\" does not exist"},
      {base_toml,
       {"--redis-password-file", (dir_ / "absent.password").string()},
       "config error: --redis-password-file: \""},
      {with_redis("password_file = \"a-folder\"\n"),
       {},
       "config error: redis.password_file: \"" + (dir_ / "a-folder").string() +
           "\" is not a regular file"},
      {with_redis("password_file = \"empty.password\"\n"),
       {},
       "config error: redis.password_file: the file holds no password"},
      {with_redis("password_file = \"newline.password\"\n"),
       {},
       "config error: redis.password_file: the file holds no password"},
      {with_redis("password_file = \"two-lines.password\"\n"),
       {},
       "config error: redis.password_file: the password must be one line"},
      {with_redis("password_file = \"\"\n"),
       {},
       "config error: redis.password_file: expected a path"},
      {with_redis("user = \"\"\n"), {}, "config error: redis.user: expected one word"},
      {with_redis("user = \"two words\"\n"),
       {},
       "config error: redis.user: expected one word"},
      {with_redis("pasword_file = \"secret.password\"\n"),
       {},
       "config error: redis.pasword_file: unknown key"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected);
    auto result = load(c.toml, c.args);
    EXPECT_FALSE(result.config);
    EXPECT_TRUE(starts_with(result.error, c.expected)) << "got: " << result.error;
    EXPECT_EQ(result.error.find("never-shown-secret"), std::string::npos);
  }
}

// -- TLS identities and signing keys ---------------------------------------------

TEST_F(config_test, tls_and_signing_files_are_read_and_a_node_needs_them_all) {
  write("ca.crt", "-----BEGIN CERTIFICATE-----\n");
  write("node.pem", "-----BEGIN CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\n");
  write("signing.key", "-----BEGIN PRIVATE KEY-----\n");
  write("b.pub", "-----BEGIN PUBLIC KEY-----\n");
  write("not-pem.key", "just bytes");
  const std::string listen = "listen = \"127.0.0.1:7001\"\n";
  const std::string files = listen +
                            "ca_file = \"ca.crt\"\ncertificate_file = \"node.pem\"\n"
                            "signing_key_file = \"signing.key\"\n";
  const auto with_peer =
      replaced(peer_b, "shards = 2\n", "shards = 2\npublic_key_file = \"b.pub\"\n");

  // Loading takes a configuration without them; a node does not start.
  auto bare = loaded(load(base_toml + peer_b));
  EXPECT_EQ(missing_credentials(bare),
            "config error: federation.certificate_file: missing (the federation port "
            "runs over TLS only; with federation.ca_file)");
  auto no_peer_key = loaded(load(replaced(base_toml, listen, files) + peer_b));
  EXPECT_EQ(missing_credentials(no_peer_key),
            "config error: peers[0].public_key_file: missing (batches from carrier-b are "
            "checked against it)");
  auto no_redis_password = loaded(load(replaced(base_toml, listen, files) + with_peer));
  EXPECT_EQ(missing_credentials(no_redis_password),
            "config error: redis.password_file: missing (the node's Redis requires a "
            "password: redis.user (simsync) authenticates with the file's content)");
  write("redis.password", "redis-password-of-the-tests\n");
  auto complete =
      loaded(load(replaced(base_toml, listen, files) + with_peer,
                  {"--redis-password-file", (dir_ / "redis.password").string()}));
  EXPECT_EQ(missing_credentials(complete), "");
  EXPECT_EQ(complete.federation_tls.ca_file, (dir_ / "ca.crt").string());
  EXPECT_EQ(complete.federation_tls.certificate_file, (dir_ / "node.pem").string());
  EXPECT_EQ(complete.signing_key, "-----BEGIN PRIVATE KEY-----\n");
  EXPECT_EQ(complete.peers[0].public_key, "-----BEGIN PUBLIC KEY-----\n");
  EXPECT_EQ(complete.self().cluster.port, 0); // a lone node opens no cluster port

  const std::vector<error_case> cases = {
      {replaced(base_toml, listen, listen + "ca_file = \"ca.crt\"\n"),
       {},
       "config error: federation.certificate_file: missing: a TLS identity needs both "
       "the CA and the certificate file"},
      {replaced(base_toml, listen, listen + "signing_key_file = \"not-pem.key\"\n"),
       {},
       "config error: federation.signing_key_file: expected a PEM file (-----BEGIN ...)"},
      {base_toml + replaced(peer_b, "shards = 2\n",
                            "shards = 2\npublic_key_file = \"missing.pub\"\n"),
       {},
       "config error: peers[0].public_key_file: \"" + (dir_ / "missing.pub").string() +
           "\" does not exist"},
      {base_without_federation() +
           replaced(two_nodes, "cluster = \"127.0.0.1:7012\"\n", ""),
       {},
       "config error: nodes[1].cluster: missing: the nodes of a carrier reach each other "
       "there"},
  };
  for (const auto& c : cases) {
    auto result = load(c.toml, c.args);
    EXPECT_FALSE(result.config) << c.expected;
    EXPECT_TRUE(starts_with(result.error, c.expected)) << result.error;
  }

  // Several nodes: a cluster identity as well.
  auto nodes = loaded(load(base_without_federation() + two_nodes +
                           "\n[federation]\nca_file = \"ca.crt\"\ncertificate_file = "
                           "\"node.pem\"\nsigning_key_file = \"signing.key\"\n"));
  EXPECT_EQ(nodes.self().cluster.to_string(), "127.0.0.1:7011");
  EXPECT_EQ(missing_credentials(nodes),
            "config error: cluster.certificate_file: missing (the cluster port runs over "
            "TLS only; with cluster.ca_file)");
}

} // namespace
} // namespace simsync::config
