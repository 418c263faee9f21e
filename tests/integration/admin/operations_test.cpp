// What an operator relies on, on real carrierd processes: the health
// endpoints of the admin port, the log lines a node writes when something
// changes, and a start that fails saying why instead of hanging.

#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/paused_process.hpp"

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <regex>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace simsync::testing {
namespace {

struct operations_test : shared_deployment<operations_test> {
  static std::vector<std::string> carriers() { return {"carrier-a", "carrier-b"}; }

  /// GET on the admin port without a credential: health is open to probes.
  http_answer admin(const std::string& carrier, const std::string& path) {
    return http.admin(carrier, "GET", path, "", "", std::string{});
  }

  /// The log lines of `carrier` that hold every one of `parts`.
  static std::vector<std::string> log_lines(const std::string& carrier,
                                            const std::vector<std::string>& parts) {
    std::vector<std::string> found;
    std::istringstream log{d->log(carrier)};
    for (std::string line; std::getline(log, line);)
      if (std::all_of(parts.begin(), parts.end(),
                      [&](const auto& p) { return line.find(p) != std::string::npos; }))
        found.push_back(line);
    return found;
  }
};

TEST_F(operations_test,
       healthz_answers_and_readyz_is_ready_when_redis_and_actors_answer) {
  auto health = admin("carrier-a", "/healthz");
  EXPECT_EQ(health.status, 200) << health.body;
  EXPECT_EQ(health.json["status"], "alive");
  http_answer ready;
  ASSERT_TRUE(eventually([&] {
    ready = admin("carrier-a", "/readyz");
    return ready.status == 200;
  })) << ready.status
      << " " << ready.body;
  EXPECT_EQ(ready.json["ready"], true);
  EXPECT_TRUE(ready.json["reasons"].empty()) << ready.body;
  EXPECT_EQ(ready.json["checked"]["redis"], "ok");
  EXPECT_EQ(ready.json["checked"]["actors"], "ok");
}

TEST_F(operations_test, readyz_is_503_with_the_reason_while_redis_is_stopped) {
  {
    paused_process stalled{d->redis("carrier-a").pid()};
    auto ready = admin("carrier-a", "/readyz");
    EXPECT_EQ(ready.status, 503) << ready.body;
    EXPECT_EQ(ready.json["ready"], false) << ready.body;
    ASSERT_FALSE(ready.json["reasons"].empty()) << ready.body;
    EXPECT_EQ(ready.json["reasons"][0].get<std::string>().rfind("redis: ", 0), 0u)
        << ready.body;
    // The process itself still answers.
    EXPECT_EQ(admin("carrier-a", "/healthz").status, 200);
  }
  EXPECT_TRUE(eventually([&] { return admin("carrier-a", "/readyz").status == 200; }));
}

TEST_F(operations_test, the_start_is_logged_with_the_durability_read_back_from_redis) {
  auto started = log_lines("carrier-a", {" info started ", "carrier=carrier-a"});
  ASSERT_EQ(started.size(), 1u) << d->log("carrier-a");
  EXPECT_NE(started[0].find("redis_state=reachable"), std::string::npos) << started[0];
  EXPECT_NE(started[0].find("redis_aof=on"), std::string::npos) << started[0];
  EXPECT_NE(started[0].find("peers=carrier-b"), std::string::npos) << started[0];
  // glibc took the settings that keep freed memory for the next requests.
  EXPECT_NE(started[0].find("keeps_freed_memory=yes"), std::string::npos) << started[0];
  // A line begins with its UTC time to the millisecond, then its level.
  EXPECT_TRUE(std::regex_search(
      started[0], std::regex{R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info started )"}))
      << started[0];
  // The Redis password is a secret: never in the log.
  std::ifstream password_file{d->redis_password_file("carrier-a")};
  std::string password;
  std::getline(password_file, password);
  ASSERT_FALSE(password.empty());
  EXPECT_EQ(d->log("carrier-a").find(password), std::string::npos);
}

TEST_F(operations_test, a_peer_link_going_down_and_up_is_logged_with_its_reason) {
  ASSERT_TRUE(eventually([&] {
    return !log_lines("carrier-a", {"peer_link_up", "peer=carrier-b"}).empty();
  })) << d->log("carrier-a");
  d->stop("carrier-b", SIGKILL);
  std::vector<std::string> down;
  ASSERT_TRUE(eventually([&] {
    down = log_lines("carrier-a", {" warn peer_link_down ", "peer=carrier-b", "reason="});
    return !down.empty();
  })) << d->log("carrier-a");
  auto ups_before = log_lines("carrier-a", {"peer_link_up", "peer=carrier-b"}).size();
  d->start("carrier-b");
  EXPECT_TRUE(eventually([&] {
    return log_lines("carrier-a", {"peer_link_up", "peer=carrier-b"}).size() > ups_before;
  })) << d->log("carrier-a");
}

TEST_F(operations_test, redis_lost_and_back_are_one_line_each_per_owner) {
  auto a = http.register_line("carrier-a", "+8613800007001", 7001);
  d->redis("carrier-a").stop(SIGKILL);
  for (int i = 0; i < 3; ++i)
    EXPECT_GE(http.push(a, card("ops-" + std::to_string(i), "Lost")).status, 500);
  d->redis("carrier-a").start();
  ASSERT_TRUE(
      eventually([&] { return http.push(a, card("ops-back", "Back")).status == 200; }));
  auto lost = log_lines("carrier-a", {" warn redis_lost ", "owner=gateway/local_store"});
  auto back = log_lines("carrier-a", {" info redis_back ", "owner=gateway/local_store"});
  // Three failed uploads, one line: the log tells of the outage, not each call.
  EXPECT_EQ(lost.size(), 1u) << d->log("carrier-a");
  EXPECT_EQ(back.size(), 1u) << d->log("carrier-a");
}

TEST_F(operations_test, the_federation_endpoint_logs_its_redis_lost_and_back) {
  // A sibling's changes are applied by the endpoint on its own connection:
  // it is one more owner that tells of an outage, once, however often the
  // peer's link retries.
  auto a = http.register_line("carrier-a", "+8613800007002", 7002);
  auto b = http.register_line("carrier-b", "+8618600007002", 7002);
  ASSERT_EQ(http.push(b, card("fed-before", "Before")).status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(a) == 1; }));
  d->redis("carrier-a").stop(SIGKILL);
  ASSERT_EQ(http.push(b, card("fed-during", "During")).status, 200);
  EXPECT_TRUE(eventually([&] {
    return !log_lines("carrier-a", {" warn redis_lost ", "owner=federation"}).empty();
  })) << d->log("carrier-a");
  d->redis("carrier-a").start();
  // The push is a snapshot: "during" replaced "before" in the line's book.
  ASSERT_TRUE(eventually([&] {
    return http.pending(a).body.find("UID:fed-during") != std::string::npos;
  })) << d->log("carrier-a");
  // The resent window may have gone by way of the router (it can hold the
  // directory entries sent before); a change of its own comes to the endpoint.
  ASSERT_EQ(http.push(b, card("fed-after", "After")).status, 200);
  EXPECT_TRUE(eventually([&] {
    return !log_lines("carrier-a", {" info redis_back ", "owner=federation"}).empty();
  })) << d->log("carrier-a");
  EXPECT_EQ(log_lines("carrier-a", {" warn redis_lost ", "owner=federation"}).size(), 1u)
      << d->log("carrier-a");
  EXPECT_EQ(log_lines("carrier-a", {" info redis_back ", "owner=federation"}).size(), 1u)
      << d->log("carrier-a");
}

TEST_F(operations_test, a_node_that_cannot_listen_exits_at_once_saying_why) {
  // A second carrierd with the running node's config: every port is taken.
  auto output = d->dir() + "/second-carrierd.log";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    auto program = deployment::carrierd_program();
    auto config = d->config_path("carrier-a");
    ::execl(program.c_str(), program.c_str(), "--config", config.c_str(), nullptr);
    ::_exit(127);
  }
  int status = 0;
  bool ended = eventually([&] { return ::waitpid(pid, &status, WNOHANG) == pid; });
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  ASSERT_TRUE(ended) << "carrierd still ran 30 s after it could not listen";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::ifstream in{output};
  std::string said{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  EXPECT_NE(said.find(" error start_failed reason="), std::string::npos) << said;
  EXPECT_NE(said.find("cannot listen for"), std::string::npos) << said;
}

/// The datagrams carrierd sends to a NOTIFY_SOCKET, as systemd receives them.
class notify_socket {
public:
  explicit notify_socket(std::string path) : path_(std::move(path)) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un at{};
    at.sun_family = AF_UNIX;
    std::strncpy(at.sun_path, path_.c_str(), sizeof(at.sun_path) - 1);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&at), sizeof(at)), 0);
    timeval wait{0, 200'000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  }
  ~notify_socket() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  /// Every message received within `limit`, until `until` is among them.
  std::vector<std::string> receive_until(const std::string& until,
                                         std::chrono::seconds limit) {
    std::vector<std::string> got;
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      char buffer[4096];
      auto n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0)
        continue;
      got.emplace_back(buffer, static_cast<std::size_t>(n));
      if (got.back().find(until) != std::string::npos)
        break;
    }
    return got;
  }

private:
  std::string path_;
  int fd_ = -1;
};

bool holds(const std::vector<std::string>& messages, const std::string& part) {
  return std::any_of(messages.begin(), messages.end(),
                     [&](const auto& m) { return m.find(part) != std::string::npos; });
}

TEST(systemd,
     carrierd_says_ready_keeps_the_watchdog_while_its_node_answers_then_stopping) {
  auto path = std::filesystem::temp_directory_path() /
              ("simsync-notify-" + std::to_string(::getpid()) + ".sock");
  notify_socket systemd{path.string()};
  deployment::options opts;
  opts.notify_socket = path.string();
  deployment d{{"carrier-a"}, opts};
  auto ready = systemd.receive_until("READY=1", std::chrono::seconds{30});
  ASSERT_TRUE(holds(ready, "READY=1")) << d.log("carrier-a");
  // WATCHDOG_USEC is 400 ms: at least a few keep-alives in two seconds.
  auto later = systemd.receive_until("never sent", std::chrono::seconds{2});
  EXPECT_GE(std::count(later.begin(), later.end(), "WATCHDOG=1"), 3) << later.size();
  d.stop("carrier-a", SIGTERM);
  EXPECT_TRUE(
      holds(systemd.receive_until("STOPPING=1", std::chrono::seconds{10}), "STOPPING=1"));
}

} // namespace
} // namespace simsync::testing
