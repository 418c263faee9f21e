#include "tests/support/redis_server.hpp"

#include "core/digest.hpp"
#include "tests/support/random_hex.hpp"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <netinet/in.h>
#include <random>
#include <set>
#include <stdexcept>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace simsync::testing {

namespace {

bool bindable_on_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

/// The lowest port the kernel hands to outgoing connections (32768 if unknown).
int first_ephemeral_port() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768;
  range >> low;
  return low;
}

/// "#<SHA-256 hex>": a password as an ACL file holds it.
std::string acl_hash(const std::string& password) {
  return "#" + core::hex(core::sha256(password));
}

/// Holds `port` for this process until it exits: an exclusive lock on a file
/// named after it, which every test process asks for before taking a port.
/// Test processes run side by side (ctest -j), and a port one of them chose
/// stays unbound until its carrierd or redis-server starts, seconds later
/// for a deployment of several nodes; without this, another could choose it
/// in between. The kernel drops the lock when the process ends, however it ends.
bool reserve_for_this_process(int port) {
  static const std::string dir = "/tmp/simsync-test-ports";
  ::mkdir(dir.c_str(), 01777);
  auto path = dir + "/" + std::to_string(port);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return true; // no shared folder: fall back to the bind check alone
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return false;
  }
  return true; // the descriptor stays open: the lock lives as long as the process
}

} // namespace

// Not port 0: that gives a port from the kernel's range for outgoing
// connections, which any process's connect() (a carrierd to its Redis, a test
// client) may take between this check and the server's bind; tests running in
// parallel then failed with "Address already in use". A random port below that
// range, never given twice by this process, is only ever taken by a listener.
int free_loopback_port() {
  static std::mutex mutex;
  static std::set<int> given;
  static std::mt19937 random{std::random_device{}()};
  std::lock_guard lock{mutex};
  constexpr int lowest = 10000;
  int highest = first_ephemeral_port() - 1;
  if (highest - lowest < 1000)
    throw std::runtime_error("no room for test ports below the ephemeral range");
  std::uniform_int_distribution<int> pick{lowest, highest};
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int port = pick(random);
    if (given.count(port) == 0 && bindable_on_loopback(port) &&
        reserve_for_this_process(port)) {
      given.insert(port);
      return port;
    }
  }
  throw std::runtime_error("cannot find a free loopback port");
}

redis_server::redis_server(options opts) : opts_(opts) {
  char tmpl[] = "/tmp/simsync-redis-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for redis-server");
  dir_ = tmpl;
  endpoint_.host = "127.0.0.1";
  endpoint_.port = free_loopback_port();
  endpoint_.user = user;
  endpoint_.password = random_hex(48);
  admin_endpoint_ = endpoint_;
  admin_endpoint_.user = admin_user;
  admin_endpoint_.password = random_hex(48);
  auto acl = dir_ + "/users.acl";
  {
    std::ofstream out(acl);
    // default: off (nobody logs in as it), but with every permission: Redis
    // 7.0 replays the AOF's transactions (a script's writes) with the default
    // user's permissions, and drops them without (found by the AOF crash test).
    out << "user default off ~* &* +@all\n"
        << "user " << user << " on " << acl_hash(endpoint_.password) << " " << user_rules
        << "\n"
        << "user " << admin_user << " on " << acl_hash(admin_endpoint_.password)
        << " ~* &* +@all\n";
    if (!out)
      throw std::runtime_error("cannot write " + acl);
  }
  ::chmod(acl.c_str(), 0600);
  start();
}

redis_server::~redis_server() {
  stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void redis_server::start() {
  launch({}, false);
}

void redis_server::start_loading_slowly(std::chrono::microseconds per_key) {
  launch({"--key-load-delay", std::to_string(per_key.count()),
          "--loading-process-events-interval-bytes", "1024"},
         true);
}

void redis_server::launch(const std::vector<std::string>& extra, bool loading_will_do) {
  // The store's settings, as tools/cluster and packaging run it; the AOF
  // only for the tests that need it (crash tests), as it slows every write.
  std::vector<std::string> args{"redis-server", SIMSYNC_REDIS_SETTINGS,
                                "--bind",       "127.0.0.1",
                                "--port",       std::to_string(endpoint_.port),
                                "--dir",        dir_,
                                "--logfile",    dir_ + "/redis.log",
                                "--appendonly", opts_.append_only ? "yes" : "no",
                                "--aclfile",    dir_ + "/users.acl"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0)
    throw std::runtime_error("cannot fork for redis-server");
  if (pid_ == 0) {
    // The server dies with the test, even a crashed one, and holds none of
    // its output pipes (ctest waits for those to close).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::execvp("redis-server", argv.data());
    ::_exit(127);
  }
  // Ready when it answers PING (or says it is loading, when that will do).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
  while (std::chrono::steady_clock::now() < deadline) {
    auto client =
        store::redis_client::connect(admin_endpoint_, std::chrono::milliseconds{200});
    if (client) {
      auto pong = client->call({"PING"});
      if (pong && pong->view().str() == "PONG")
        return;
      if (pong && loading_will_do && pong->view().is_error() &&
          pong->view().str().substr(0, 7) == "LOADING")
        return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  throw std::runtime_error("redis-server did not answer on port " +
                           std::to_string(endpoint_.port) + "; see " + dir_ +
                           "/redis.log");
}

void redis_server::stop(int signal) {
  if (pid_ <= 0)
    return;
  ::kill(pid_, signal);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

void redis_server::restart(bool crash) {
  stop(crash ? SIGKILL : SIGTERM);
  start();
}

store::redis_client redis_server::connect_as_carrierd() const {
  auto client = store::redis_client::connect(endpoint_);
  if (!client)
    throw std::runtime_error("cannot connect to the test's redis-server as " +
                             endpoint_.user + ": " + describe(client.error()));
  return std::move(*client);
}

store::redis_client redis_server::connect() const {
  auto client = store::redis_client::connect(admin_endpoint_);
  if (!client)
    throw std::runtime_error("cannot connect to the test's redis-server: " +
                             describe(client.error()));
  return std::move(*client);
}

std::string info_field(store::redis_client& redis, const std::string& section,
                       const std::string& name) {
  auto info = redis.call({"INFO", section});
  if (!info || info->view().is_error())
    return "";
  auto text = "\n" + std::string(info->view().str());
  auto at = text.find("\n" + name + ":");
  if (at == std::string::npos)
    return "";
  at += name.size() + 2;
  return text.substr(at, text.find_first_of("\r\n", at) - at);
}

long long command_calls(store::redis_client& redis, const std::string& command) {
  auto info = redis.call({"INFO", "commandstats"});
  if (!info || info->view().is_error())
    return -1;
  std::string text(info->view().str());
  auto label = "cmdstat_" + command + ":calls=";
  auto at = text.find(label);
  return at == std::string::npos ? 0 : std::stoll(text.substr(at + label.size()));
}

} // namespace simsync::testing
