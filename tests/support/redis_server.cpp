#include "tests/support/redis_server.hpp"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace simsync::testing {

int free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot find a free loopback port");
  ::close(fd);
  return ntohs(addr.sin_port);
}

redis_server::redis_server(options opts) : opts_(opts) {
  char tmpl[] = "/tmp/simsync-redis-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for redis-server");
  dir_ = tmpl;
  endpoint_.host = "127.0.0.1";
  endpoint_.port = free_loopback_port();
  start();
}

redis_server::~redis_server() {
  stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void redis_server::start() {
  std::vector<std::string> args{"redis-server",
                                "--bind",
                                "127.0.0.1",
                                "--port",
                                std::to_string(endpoint_.port),
                                "--dir",
                                dir_,
                                "--logfile",
                                dir_ + "/redis.log",
                                "--save",
                                "",
                                "--appendonly",
                                opts_.append_only ? "yes" : "no",
                                "--appendfsync",
                                "always"};
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
  // Ready when it answers PING.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
  while (std::chrono::steady_clock::now() < deadline) {
    auto client = store::redis_client::connect(endpoint_, std::chrono::milliseconds{200});
    if (client) {
      auto pong = client->call({"PING"});
      if (pong && pong->view().str() == "PONG")
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

store::redis_client redis_server::connect() const {
  auto client = store::redis_client::connect(endpoint_);
  if (!client)
    throw std::runtime_error("cannot connect to the test's redis-server: " +
                             describe(client.error()));
  return std::move(*client);
}

} // namespace simsync::testing
