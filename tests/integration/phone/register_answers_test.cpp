// phone register against a stand-in carrier (a real HTTP server in the test)
// that answers each step as the test says: what the phone sends, and the one
// line it prints for each refusal of the registration API.
#include "phone/cli.hpp"
#include "tests/support/redis_server.hpp" // free_loopback_port

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

/// One canned answer: status, problem+json or JSON body, Retry-After.
struct answer {
  int status = 200;
  nlohmann::json body = nlohmann::json::object();
  std::string retry_after;
};

answer problem(int status, const std::string& slug, nlohmann::json extra = {}) {
  nlohmann::json body = extra.is_object() ? extra : nlohmann::json::object();
  body["type"] = "urn:simsync:problem:" + slug;
  body["title"] = slug;
  body["status"] = status;
  body["detail"] = "the carrier's words for " + slug;
  return {status, body, ""};
}

struct register_answers : ::testing::Test {
  httplib::Server server;
  std::thread thread;
  int port = simsync::testing::free_loopback_port();
  answer on_register{202,
                     {{"status", "code-sent"},
                      {"sent_via", "sms"},
                      {"expires_at", "2030-01-01T00:05:00Z"},
                      {"expires_in", 300}},
                     ""};
  answer on_verify{
      201,
      {{"token", "tok-1"}, {"idcode", "0123456789abcdef0123"}, {"account_created", true}},
      ""};
  std::vector<nlohmann::json> registers, verifies; // the bodies the phone sent
  fs::path dir = fs::temp_directory_path() /
                 ("simsync-register-answers-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());

  void SetUp() override {
    fs::create_directories(dir);
    auto reply = [](const answer& a, httplib::Response& res) {
      res.status = a.status;
      if (!a.retry_after.empty())
        res.set_header("Retry-After", a.retry_after);
      res.set_content(a.body.dump(),
                      a.status >= 400 ? "application/problem+json" : "application/json");
    };
    server.Post("/v1/register",
                [&, reply](const httplib::Request& req, httplib::Response& res) {
                  registers.push_back(nlohmann::json::parse(req.body, nullptr, false));
                  reply(on_register, res);
                });
    server.Post("/v1/register/verify",
                [&, reply](const httplib::Request& req, httplib::Response& res) {
                  verifies.push_back(nlohmann::json::parse(req.body, nullptr, false));
                  reply(on_verify, res);
                });
    ASSERT_TRUE(server.bind_to_port("127.0.0.1", port));
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  void TearDown() override {
    server.stop();
    if (thread.joinable())
      thread.join();
    fs::remove_all(dir);
  }

  struct result {
    int code;
    std::string out, err;
  };
  /// phone register ... with `typed` on its stdin, in process.
  result run(std::vector<std::string> extra, const std::string& typed) {
    auto book = (dir / "a.vcf").string();
    auto gateway = "http://127.0.0.1:" + std::to_string(port);
    std::vector<std::string> args{"phone",     "register", "--book",   book,
                                  "--gateway", gateway,    "--msisdn", "+8613800100042"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<const char*> argv;
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::istringstream in(typed);
    std::ostringstream out, err;
    int code = simsync::phone::run(static_cast<int>(argv.size()), argv.data(), in, out,
                                   err, false);
    return {code, out.str(), err.str()};
  }
  result run_typing(const std::string& typed) {
    return run({"--iccid", "89860012345678900042"}, typed);
  }
};

} // namespace

TEST_F(register_answers, sends_the_number_and_the_sim_then_the_typed_code) {
  auto r = run_typing("123456\r\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "code sent by SMS to +8613800100042: registered +8613800100042 at "
                   "http://127.0.0.1:" +
                       std::to_string(port) + ": new account (idcode 0123456789ab…)\n");
  ASSERT_EQ(registers.size(), 1u);
  EXPECT_EQ(registers[0], (nlohmann::json{{"msisdn", "+8613800100042"},
                                          {"iccid", "89860012345678900042"}}));
  ASSERT_EQ(verifies.size(), 1u);
  EXPECT_EQ(verifies[0],
            (nlohmann::json{{"msisdn", "+8613800100042"}, {"code", "123456"}}));
  EXPECT_TRUE(fs::exists(dir / "a.vcf.state.json"));
}

TEST_F(register_answers, with_a_code_only_verifies) {
  auto r = run({"--code", "654321"}, "");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(registers.empty());
  ASSERT_EQ(verifies.size(), 1u);
  EXPECT_EQ(verifies[0]["code"], "654321");
}

TEST_F(register_answers, no_code_typed_says_how_to_go_on) {
  auto r = run_typing("");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "phone: no code entered; when the SMS arrives (valid 5 min): phone "
                   "register --msisdn +8613800100042 --code CODE\n");
  EXPECT_TRUE(verifies.empty());
  EXPECT_FALSE(fs::exists(dir / "a.vcf.state.json"));
}

TEST_F(register_answers, each_refusal_is_one_line_that_says_what_to_do) {
  struct refusal_case {
    bool at_verify;
    answer a;
    std::string expected;
  };
  auto limited = [](answer a, const std::string& seconds) {
    a.retry_after = seconds;
    return a;
  };
  std::vector<refusal_case> cases{
      {false, problem(403, "not-eligible"),
       "phone: register refused (403 not-eligible): the carrier has no active subscriber "
       "+8613800100042 with SIM 89860012345678900042; check the number and the ICCID, or "
       "ask your carrier\n"},
      {true, problem(403, "invalid-code", {{"attempts_left", 2}}),
       "phone: register refused (403 invalid-code): wrong code, 2 attempts left; try "
       "again: phone register --msisdn +8613800100042 --code CODE\n"},
      {true, problem(403, "invalid-code"),
       "phone: register refused (403 invalid-code): no code is waiting for "
       "+8613800100042 "
       "(it was used, or never sent); ask for a new one: phone register --msisdn "
       "+8613800100042 --iccid 89860012345678900042\n"},
      {true, problem(410, "code-expired"),
       "phone: register refused (410 code-expired): the code has expired; ask for a new "
       "one: phone register --msisdn +8613800100042 --iccid 89860012345678900042\n"},
      {false, limited(problem(429, "too-many-codes"), "420"),
       "phone: register refused (429 too-many-codes): too many codes sent to "
       "+8613800100042; try again in 7 min\n"},
      {false, limited(problem(429, "too-many-requests"), "30"),
       "phone: register refused (429 too-many-requests): too many requests from this "
       "address; try again in 30 s\n"},
      {true, limited(problem(429, "too-many-attempts"), "45"),
       "phone: register refused (429 too-many-attempts): too many wrong codes; try again "
       "in 45 s\n"},
      {false, problem(503, "sms-unavailable"),
       "phone: register refused (503 sms-unavailable): the carrier cannot send the code "
       "by SMS right now; try again later\n"},
      {false, problem(400, "invalid-field"),
       "phone: register refused (400 Bad Request): the carrier's words for "
       "invalid-field\n"},
  };
  for (const auto& c : cases) {
    registers.clear();
    verifies.clear();
    auto saved_register = on_register;
    if (c.at_verify)
      on_verify = c.a;
    else
      on_register = c.a;
    auto r = run_typing("123456\n");
    EXPECT_EQ(r.code, 1) << c.expected;
    EXPECT_EQ(r.err, c.expected);
    // Refused at the first step: no code was asked for; an SMS outage is not
    // retried like a shed request.
    EXPECT_EQ(registers.size(), 1u) << c.expected;
    EXPECT_EQ(verifies.size(), c.at_verify ? 1u : 0u) << c.expected;
    EXPECT_FALSE(fs::exists(dir / "a.vcf.state.json")) << c.expected;
    on_register = saved_register;
  }
}
