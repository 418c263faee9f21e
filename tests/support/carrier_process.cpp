#include "tests/support/carrier_process.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/socket.h>
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

} // namespace

deployment::deployment(std::vector<std::string> ids, options opts) : opts_(opts) {
  char tmpl[] = "/tmp/simsync-deployment-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for the deployment");
  dir_ = tmpl;
  // Test keys: fixed, so every carrier agrees; never used outside tests.
  write_file(dir_ + "/federation.key", "simsync-test-federation-key-0123456789");
  for (const auto& id : ids) {
    write_file(dir_ + "/" + id + ".seal.key", std::string(64, '7'));
    carrier c;
    c.redis = std::make_unique<redis_server>(redis_server::options{true});
    c.federation_port = free_loopback_port();
    c.config_path = dir_ + "/" + id + ".toml";
    carriers_.emplace(id, std::move(c));
  }
  for (const auto& id : ids) {
    write_config(id);
    start(id);
  }
}

deployment::~deployment() {
  for (auto& [id, c] : carriers_)
    stop(id, SIGTERM);
  carriers_.clear(); // the redis-servers, by pid
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void deployment::write_config(const std::string& id) {
  const auto& self = carriers_.at(id);
  std::string toml =
      "carrier = \"" + id +
      "\"\nnode = \"n1\"\nshards = " + std::to_string(opts_.shards) +
      "\nfederation_key_file = \"federation.key\"\nseal_key_file = \"" + id +
      ".seal.key\"\ndata_dir = \"" + id + "\"\n\n[redis]\naddress = \"" +
      self.redis->endpoint().to_string() +
      "\"\n\n[gateway]\nlisten = \"127.0.0.1:" + std::to_string(free_loopback_port()) +
      "\"\n\n[admin]\nlisten = \"127.0.0.1:" + std::to_string(free_loopback_port()) +
      "\"\n\n[federation]\nlisten = \"127.0.0.1:" + std::to_string(self.federation_port) +
      "\"\n";
  for (const auto& [peer, c] : carriers_) {
    if (peer == id)
      continue;
    std::string shards;
    for (int s = 0; s < opts_.shards; ++s)
      shards += (s ? ", " : "") + std::to_string(s);
    toml += "\n[[peers]]\nid = \"" + peer +
            "\"\nshards = " + std::to_string(opts_.shards) +
            "\n  [[peers.nodes]]\n  id = \"n1\"\n  federation = \"127.0.0.1:" +
            std::to_string(c.federation_port) + "\"\n  shards = [" + shards + "]\n";
  }
  write_file(self.config_path, toml);
}

void deployment::start(const std::string& id) {
  auto& c = carriers_.at(id);
  if (c.pid > 0)
    return;
  std::string log = dir_ + "/" + id + ".log";
  std::vector<std::string> args{SIMSYNC_CARRIERD_PATH, "--config", c.config_path};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  int rc =
      ::posix_spawn(&c.pid, SIMSYNC_CARRIERD_PATH, &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0)
    throw std::runtime_error("cannot start carrierd for " + id);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{15};
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(c.pid, &status, WNOHANG) == c.pid) {
      c.pid = -1;
      throw std::runtime_error("carrierd for " + id + " exited at start; see " + log);
    }
    if (accepts_connections(c.federation_port))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  throw std::runtime_error("carrierd for " + id + " did not listen in time; see " + log);
}

void deployment::stop(const std::string& id, int signal) {
  auto& c = carriers_.at(id);
  if (c.pid <= 0)
    return;
  ::kill(c.pid, signal);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  while (::waitpid(c.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      // A carrierd that ignores SIGTERM is a bug: fail, but never hang the suite.
      ::kill(c.pid, SIGKILL);
      ::waitpid(c.pid, &status, 0);
      ADD_FAILURE() << "carrierd for " << id << " did not stop within 20 s of signal "
                    << signal;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  c.pid = -1;
}

} // namespace simsync::testing
