// The SMS gateways: "http" against a real HTTP server on loopback (an
// in-process cpp-httplib server standing in for the carrier's SMS provider),
// "file" in a temporary folder.

#include "net/sms_gateway.hpp"

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace simsync::net {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string msisdn = "+8613800000001";
const std::string text = "simsync code 123456 (valid 5 minutes). Never share it.";

/// What the stand-in gateway received.
struct received {
  std::string path;
  std::string query_route;
  std::string content_type;
  std::string authorization;
  bool has_authorization = false;
  std::string body;
};

/// An HTTP server on 127.0.0.1 and a free port, answering POSTs with
/// `answer`, which is given the request's number (from 1).
class fake_sms_provider {
public:
  using answer_fn = std::function<void(int, httplib::Response&)>;

  explicit fake_sms_provider(answer_fn answer) : answer_(std::move(answer)) {
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      int n;
      {
        std::lock_guard<std::mutex> lock{mutex_};
        received r;
        r.path = req.path;
        r.query_route = req.get_param_value("route");
        r.content_type = req.get_header_value("Content-Type");
        r.has_authorization = req.has_header("Authorization");
        r.authorization = req.get_header_value("Authorization");
        r.body = req.body;
        requests_.push_back(r);
        n = static_cast<int>(requests_.size());
      }
      answer_(n, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0)
      throw std::runtime_error("cannot bind the fake SMS provider");
    thread_ = std::thread{[this] { server_.listen_after_bind(); }};
    for (int i = 0; i < 500 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(2ms);
  }

  ~fake_sms_provider() {
    release();
    server_.stop();
    thread_.join();
  }

  std::string url(const std::string& path = "/sms") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  std::vector<received> requests() const {
    std::lock_guard<std::mutex> lock{mutex_};
    return requests_;
  }

  /// Blocks a handler until release() or `most`.
  void hold(std::chrono::milliseconds most) {
    std::unique_lock<std::mutex> lock{mutex_};
    released_cv_.wait_for(lock, most, [this] { return released_; });
  }

  void release() {
    {
      std::lock_guard<std::mutex> lock{mutex_};
      released_ = true;
    }
    released_cv_.notify_all();
  }

private:
  answer_fn answer_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
  std::vector<received> requests_;
};

void answer_ok(httplib::Response& res) {
  res.status = 200;
  res.set_content(R"({"accepted":true})", "application/json");
}

config::sms_settings http_settings(const std::string& url) {
  config::sms_settings s;
  s.kind = "http";
  s.url = url;
  s.timeout = 300ms;
  s.attempts = 3;
  return s;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Checks what every failure must hold: a reason, and not the message's code.
void expect_clean_failure(const std::string& error) {
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(contains(error, "123456")) << error;
  EXPECT_FALSE(contains(error, "secret-token")) << error;
}

// -- http ----------------------------------------------------------------------

TEST(sms_http, delivers_on_200_with_the_json_body_and_the_bearer_token) {
  fake_sms_provider provider{[](int, httplib::Response& res) { answer_ok(res); }};
  auto s = http_settings(provider.url("/v1/sms?route=cn"));
  s.token = "secret-token";
  auto gateway = make_sms_gateway(s, "/nonexistent");
  ASSERT_TRUE(gateway);
  EXPECT_EQ(gateway->send(msisdn, text), "");
  auto requests = provider.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/sms");
  EXPECT_EQ(requests[0].query_route, "cn");
  EXPECT_EQ(requests[0].content_type, "application/json");
  EXPECT_EQ(requests[0].authorization, "Bearer secret-token");
  auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body, (nlohmann::json{{"to", msisdn}, {"text", text}}));
}

TEST(sms_http, sends_no_authorization_without_a_token_and_any_2xx_delivers) {
  fake_sms_provider provider{[](int, httplib::Response& res) { res.status = 202; }};
  auto gateway = make_http_sms_gateway(http_settings(provider.url()));
  EXPECT_EQ(gateway->send(msisdn, text), "");
  auto requests = provider.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].has_authorization);
  EXPECT_EQ(requests[0].path, "/sms");
}

TEST(sms_http, retries_a_503_and_a_429_then_delivers) {
  fake_sms_provider provider{[](int n, httplib::Response& res) {
    if (n == 1)
      res.status = 503;
    else if (n == 2)
      res.status = 429;
    else
      answer_ok(res);
  }};
  auto gateway = make_http_sms_gateway(http_settings(provider.url()));
  EXPECT_EQ(gateway->send(msisdn, text), "");
  auto requests = provider.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[2].body, requests[0].body);
}

TEST(sms_http, does_not_retry_a_400) {
  fake_sms_provider provider{[](int, httplib::Response& res) {
    res.status = 400;
    res.set_content(text, "text/plain"); // a provider echoing the message
  }};
  auto gateway = make_http_sms_gateway(http_settings(provider.url()));
  auto error = gateway->send(msisdn, text);
  expect_clean_failure(error);
  EXPECT_TRUE(contains(error, "answered 400")) << error;
  EXPECT_TRUE(contains(error, "not retried")) << error;
  EXPECT_EQ(provider.requests().size(), 1u);
}

TEST(sms_http, gives_up_on_5xx_after_the_attempts) {
  fake_sms_provider provider{[](int, httplib::Response& res) { res.status = 502; }};
  auto s = http_settings(provider.url());
  s.attempts = 2;
  auto error = make_http_sms_gateway(s)->send(msisdn, text);
  expect_clean_failure(error);
  EXPECT_TRUE(contains(error, "gave up after 2 attempts; last: answered 502")) << error;
  EXPECT_EQ(provider.requests().size(), 2u);
}

TEST(sms_http, a_provider_slower_than_the_timeout_fails_after_the_attempts) {
  fake_sms_provider* self = nullptr;
  fake_sms_provider provider{[&self](int, httplib::Response& res) {
    self->hold(10s); // released when the test ends
    answer_ok(res);
  }};
  self = &provider;
  auto s = http_settings(provider.url());
  s.timeout = 200ms;
  s.attempts = 3;
  auto started = std::chrono::steady_clock::now();
  auto error = make_http_sms_gateway(s)->send(msisdn, text);
  auto took = std::chrono::steady_clock::now() - started;
  expect_clean_failure(error);
  EXPECT_TRUE(contains(error, "gave up after 3 attempts; last: no answer")) << error;
  // Three timeouts and two pauses (100 + 200 ms): 0.9 s, give or take.
  EXPECT_GE(took, 600ms);
  EXPECT_LT(took, 3s);
  provider.release();
  EXPECT_EQ(provider.requests().size(), 3u);
}

TEST(sms_http, nothing_listening_fails_with_a_clear_error) {
  std::string url;
  { // a port that was free a moment ago and is closed now
    fake_sms_provider gone{[](int, httplib::Response& res) { answer_ok(res); }};
    url = gone.url();
  }
  auto s = http_settings(url);
  s.token = "secret-token";
  auto started = std::chrono::steady_clock::now();
  auto error = make_http_sms_gateway(s)->send(msisdn, text);
  expect_clean_failure(error);
  auto origin = url.substr(0, url.rfind('/'));
  EXPECT_EQ(error,
            "sms http " + origin + ": gave up after 3 attempts; last: cannot connect");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

TEST(sms_http, the_factory_refuses_what_it_cannot_use) {
  EXPECT_EQ(make_sms_gateway(config::sms_settings{}, "/tmp"), nullptr); // kind none
  auto s = http_settings("ftp://127.0.0.1/sms");
  EXPECT_THROW(make_sms_gateway(s, "/tmp"), std::invalid_argument);
  s.url = "http:///sms";
  EXPECT_THROW(make_sms_gateway(s, "/tmp"), std::invalid_argument);
  s.kind = "smtp";
  EXPECT_THROW(make_sms_gateway(s, "/tmp"), std::invalid_argument);
}

// -- file ----------------------------------------------------------------------

class sms_file : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "simsync-sms-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::vector<std::string> lines_of(const fs::path& path) {
    std::ifstream in{path};
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
      lines.push_back(line);
    return lines;
  }

  fs::path dir_;
};

TEST_F(sms_file, each_message_is_one_json_line_in_the_data_folder) {
  auto data_dir = dir_ / "data" / "carrier-a" / "a1"; // not there yet
  config::sms_settings s;
  s.kind = "file";
  auto gateway = make_sms_gateway(s, data_dir.string());
  ASSERT_TRUE(gateway);
  EXPECT_EQ(sms_file_path(data_dir.string()), (data_dir / "sms.ndjson").string());
  EXPECT_EQ(gateway->send(msisdn, text), "");
  EXPECT_EQ(gateway->send("+8613800000002", "simsync code 654321 (\"quoted\")"), "");
  auto path = data_dir / "sms.ndjson";
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("{\"at\":\"", 0), 0u) << lines[0];
  const std::regex rfc3339{R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"};
  auto first = nlohmann::json::parse(lines[0]);
  auto second = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(first.size(), 3u);
  EXPECT_TRUE(std::regex_match(first["at"].get<std::string>(), rfc3339)) << first["at"];
  EXPECT_EQ(first["to"], msisdn);
  EXPECT_EQ(first["text"], text);
  EXPECT_TRUE(std::regex_match(second["at"].get<std::string>(), rfc3339));
  EXPECT_EQ(second["to"], "+8613800000002");
  EXPECT_EQ(second["text"], "simsync code 654321 (\"quoted\")");
  EXPECT_LE(first["at"].get<std::string>(), second["at"].get<std::string>());
}

TEST_F(sms_file, concurrent_senders_write_whole_lines) {
  auto gateway = make_file_sms_gateway((dir_ / "sms.ndjson").string());
  // A second gateway on the same file stands in for another process.
  auto other = make_file_sms_gateway((dir_ / "sms.ndjson").string());
  constexpr int threads = 8;
  constexpr int per_thread = 50;
  const std::string padding(3000, 'x'); // lines longer than a pipe's atomic write
  std::atomic<int> failures{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t)
    senders.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        auto& g = t % 2 ? other : gateway;
        auto to = "+86138" + std::to_string(10000000 + t * 1000 + i);
        if (!g->send(to, padding + " " + to).empty())
          ++failures;
      }
    });
  for (auto& sender : senders)
    sender.join();
  EXPECT_EQ(failures, 0);
  auto lines = lines_of(dir_ / "sms.ndjson");
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(threads * per_thread));
  std::set<std::string> seen;
  for (const auto& line : lines) {
    auto message = nlohmann::json::parse(line); // throws on a torn line
    auto to = message["to"].get<std::string>();
    EXPECT_EQ(message["text"], padding + " " + to);
    EXPECT_TRUE(seen.insert(to).second) << to;
  }
}

TEST_F(sms_file, an_unwritable_place_fails_with_a_clear_error) {
  std::ofstream{dir_ / "blocker"} << "a file where the folder should be";
  auto gateway = make_file_sms_gateway((dir_ / "blocker" / "sms.ndjson").string());
  auto error = gateway->send(msisdn, text);
  expect_clean_failure(error);
  EXPECT_EQ(error.rfind("sms file: cannot create " + (dir_ / "blocker").string(), 0), 0u)
      << error;
}

} // namespace
} // namespace simsync::net
