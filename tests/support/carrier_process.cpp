#include "tests/support/carrier_process.hpp"

#include "config/keyring_file.hpp"
#include "core/line_id.hpp"
#include "tests/support/random_hex.hpp"

#include "tests/support/test_pki.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace simsync::testing {

namespace {

bool accepts_connections(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

/// A secret file, readable by its owner only.
void write_secret(const std::string& path, const std::string& text) {
  write_file(path, text);
  ::chmod(path.c_str(), 0600);
}

/// A carrier's keyring file as tools/cluster up writes it: a random seal
/// key 1, the writer, and a random lookup key.
std::string random_keyring_toml() {
  return "writer = 1\nlookup = \"" + random_hex(64) + "\"\n\n[keys]\n1 = \"" +
         random_hex(64) + "\"\n";
}

} // namespace

deployment::deployment(std::vector<std::string> ids, options opts) : opts_(opts) {
  char tmpl[] = "/tmp/simsync-deployment-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for the deployment");
  dir_ = tmpl;
  // Keys of this deployment only, so that a test cannot pass by knowing them.
  federation_key_ = random_hex(64);
  write_secret(dir_ + "/federation.key", federation_key_);
  for (const auto& id : ids) {
    write_secret(dir_ + "/" + id + ".seal.key", random_keyring_toml());
    admin_keys_[id] = random_hex(64);
    write_secret(dir_ + "/" + id + ".admin.key", admin_keys_[id] + "\n");
    auto count = opts_.nodes.count(id) ? opts_.nodes.at(id) : 1;
    auto& nodes = carriers_[id];
    for (int i = 0; i < count; ++i) {
      node n;
      n.id = "n" + std::to_string(i + 1);
      n.redis = std::make_unique<redis_server>(redis_server::options{true});
      n.federation_port = free_loopback_port();
      n.gateway_port = free_loopback_port();
      n.admin_port = free_loopback_port();
      n.cluster_port = free_loopback_port();
      if (opts_.relay_federation)
        n.relay = std::make_unique<tcp_relay>(n.federation_port);
      for (int s = i; s < opts_.shards; s += count)
        n.shards.push_back(s);
      n.config_path = dir_ + "/" + id + "-" + n.id + ".toml";
      auto password_file = dir_ + "/" + id + "-" + n.id + ".redis.password";
      write_secret(password_file, n.redis->endpoint().password + "\n");
      nodes.push_back(std::move(n));
    }
  }
  for (const auto& [id, nodes] : carriers_) {
    std::vector<std::string> node_ids;
    for (const auto& n : nodes)
      node_ids.push_back(n.id);
    test_pki::shared().ensure(id, node_ids);
  }
  for (const auto& [id, nodes] : carriers_)
    for (const auto& n : nodes)
      write_config(id, n);
  for (const auto& id : ids)
    start(id);
}

deployment::~deployment() {
  for (auto& [id, nodes] : carriers_)
    stop(id, SIGTERM);
  carriers_.clear(); // the redis-servers, by pid
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string deployment::nodes_toml(const std::string& carrier,
                                   const std::string& table) const {
  std::string out;
  for (const auto& n : carriers_.at(carrier)) {
    std::string shards;
    for (int s : n.shards)
      shards += (shards.empty() ? "" : ", ") + std::to_string(s);
    out += "\n[[" + table + "]]\nid = \"" + n.id + "\"\nfederation = \"127.0.0.1:" +
           std::to_string(n.relay && table == "peers.nodes" ? n.relay->port()
                                                            : n.federation_port) +
           "\"\n" +
           (table == "nodes"
                ? "cluster = \"127.0.0.1:" + std::to_string(n.cluster_port) + "\"\n"
                : std::string{}) +
           "shards = [" + shards + "]\n";
  }
  return out;
}

/// The [gateway] limits the options set, one "key = value" line each.
std::string deployment::gateway_limits() const {
  std::string out;
  if (opts_.max_replication_lag_ms)
    out += "max_replication_lag_ms = " + std::to_string(*opts_.max_replication_lag_ms) +
           "\n";
  if (opts_.max_in_flight)
    out += "max_in_flight = " + std::to_string(*opts_.max_in_flight) + "\n";
  return out;
}

core::keyring deployment::keys(const std::string& carrier) const {
  return config::read_keyring_file(seal_key_file(carrier));
}

void deployment::write_config(const std::string& carrier, const node& self) {
  std::string toml =
      "carrier = \"" + carrier + "\"\nnode = \"" + self.id +
      "\"\nshards = " + std::to_string(opts_.shards) +
      "\nfederation_key_file = \"federation.key\"\nseal_key_file = \"" + carrier +
      ".seal.key\"\ndata_dir = \"" + carrier + "-" + self.id +
      "\"\n\n[redis]\naddress = \"" + self.redis->endpoint().to_string() +
      "\"\nuser = \"" + self.redis->endpoint().user + "\"\npassword_file = \"" + carrier +
      "-" + self.id + ".redis.password\"\n\n[gateway]\nlisten = \"127.0.0.1:" +
      std::to_string(self.gateway_port) + "\"\n" + gateway_limits() +
      "\n[admin]\nlisten = \"127.0.0.1:" + std::to_string(self.admin_port) +
      "\"\nmetrics = " + (opts_.metrics ? "true" : "false") + "\nkey_file = \"" +
      carrier + ".admin.key\"\n" +
      (opts_.sms_url.empty() ? "\n[sms]\nkind = \"file\"\n"
                             : "\n[sms]\nkind = \"http\"\nurl = \"" + opts_.sms_url +
                                   "\"\ntimeout_ms = 1000\nattempts = 2\n") +
      "\n[registration]\ncode_ttl_seconds = " + std::to_string(opts_.code_ttl_seconds) +
      "\nmax_code_attempts = " + std::to_string(opts_.max_code_attempts) +
      "\ncodes_per_msisdn = " + std::to_string(opts_.codes_per_msisdn) +
      "\nrequests_per_address = " + std::to_string(opts_.requests_per_address) + "\n";
  const auto& pki = test_pki::shared();
  toml += "\n[federation]\nca_file = \"" + pki.federation_ca() +
          "\"\ncertificate_file = \"" + pki.federation_pem(carrier) +
          "\"\nsigning_key_file = \"" + pki.signing_key(carrier) + "\"\n";
  if (opts_.ack_timeout_seconds)
    toml += "ack_timeout_seconds = " + std::to_string(*opts_.ack_timeout_seconds) + "\n";
  toml += "\n[cluster]\nca_file = \"" + pki.cluster_ca(carrier) +
          "\"\ncertificate_file = \"" + pki.cluster_pem(carrier, self.id) + "\"\n";
  toml += nodes_toml(carrier, "nodes");
  for (const auto& [peer, nodes] : carriers_) {
    if (peer == carrier)
      continue;
    toml += "\n[[peers]]\nid = \"" + peer +
            "\"\nshards = " + std::to_string(opts_.shards) + "\npublic_key_file = \"" +
            pki.signing_pub(peer) + "\"\n" + nodes_toml(peer, "peers.nodes");
  }
  write_file(self.config_path, toml);
}

std::string deployment::line_id(const std::string& carrier,
                                const std::string& msisdn) const {
  return core::line_id_of(keys(carrier), msisdn);
}

void deployment::start(const std::string& carrier) {
  for (size_t i = 0; i < carriers_.at(carrier).size(); ++i)
    start_node(carrier, static_cast<int>(i));
}

void deployment::stop(const std::string& carrier, int signal) {
  for (size_t i = 0; i < carriers_.at(carrier).size(); ++i)
    stop_node(carrier, static_cast<int>(i), signal);
}

std::string deployment::carrierd_program() {
  return SIMSYNC_CARRIERD_PATH;
}

std::string deployment::log_path(const std::string& carrier, const node& n) const {
  return dir_ + "/" + carrier + "-" + n.id + ".log";
}

std::string deployment::log(const std::string& carrier, int node) const {
  std::ifstream in{
      log_path(carrier, carriers_.at(carrier).at(static_cast<size_t>(node)))};
  return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

void deployment::start_node(const std::string& carrier, int index) {
  auto& n = carriers_.at(carrier).at(static_cast<size_t>(index));
  if (n.pid > 0)
    return;
  std::string name = carrier + "/" + n.id;
  std::string log = log_path(carrier, n);
  std::vector<std::string> args{SIMSYNC_CARRIERD_PATH, "--config", n.config_path};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  auto parent = ::getpid();
  n.pid = ::fork();
  if (n.pid < 0)
    throw std::runtime_error("cannot start carrierd " + name);
  if (n.pid == 0) {
    // carrierd dies with the test, even a crashed one (a test that aborted
    // left its nodes running), and writes to its log, not the test's output.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(127);
    if (!opts_.notify_socket.empty()) {
      ::setenv("NOTIFY_SOCKET", opts_.notify_socket.c_str(), 1);
      ::setenv("WATCHDOG_PID", std::to_string(::getpid()).c_str(), 1);
      ::setenv("WATCHDOG_USEC", "400000", 1);
    }
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::execv(SIMSYNC_CARRIERD_PATH, argv.data());
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{15};
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(n.pid, &status, WNOHANG) == n.pid) {
      n.pid = -1;
      throw std::runtime_error("carrierd " + name + " exited at start; see " + log);
    }
    // The gateway starts after the node's actors: both up means ready.
    if (accepts_connections(n.federation_port) && accepts_connections(n.cluster_port) &&
        accepts_connections(n.gateway_port) && accepts_connections(n.admin_port))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  throw std::runtime_error("carrierd " + name + " did not listen in time; see " + log);
}

void deployment::stop_node(const std::string& carrier, int index, int signal) {
  auto& n = carriers_.at(carrier).at(static_cast<size_t>(index));
  if (n.pid <= 0)
    return;
  ::kill(n.pid, signal);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  while (::waitpid(n.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      // A carrierd that ignores SIGTERM is a bug: fail, but never hang the suite.
      ::kill(n.pid, SIGKILL);
      ::waitpid(n.pid, &status, 0);
      ADD_FAILURE() << "carrierd " << carrier << "/" << n.id
                    << " did not stop within 20 s of signal " << signal;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  n.pid = -1;
}

std::vector<std::string> deployment::texts_to(const std::string& carrier,
                                              const std::string& msisdn) const {
  std::vector<std::string> out;
  for (const auto& n : carriers_.at(carrier)) {
    std::ifstream in(dir_ + "/" + carrier + "-" + n.id + "/sms.ndjson");
    std::string line;
    while (std::getline(in, line)) {
      auto message = nlohmann::json::parse(line, nullptr, false);
      if (message.is_object() && message.value("to", "") == msisdn)
        out.push_back(message.value("text", ""));
    }
  }
  return out;
}

std::string deployment::last_code(const std::string& carrier,
                                  const std::string& msisdn) const {
  auto texts = texts_to(carrier, msisdn);
  std::smatch code;
  static const std::regex six_digits{R"(\b(\d{6})\b)"};
  if (texts.empty() || !std::regex_search(texts.back(), code, six_digits))
    return "";
  return code[1];
}

std::string deployment::federation_bytes() const {
  std::string out;
  for (const auto& [id, nodes] : carriers_)
    for (const auto& n : nodes)
      if (n.relay)
        out += n.relay->carried();
  return out;
}

int deployment::messages_to(const std::string& carrier, const std::string& msisdn) const {
  return static_cast<int>(texts_to(carrier, msisdn).size());
}

} // namespace simsync::testing
