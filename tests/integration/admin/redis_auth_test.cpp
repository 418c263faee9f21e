// A carrierd whose Redis password file holds the wrong password does not
// serve: it starts (as it does while its Redis is unreachable), but every
// request that needs its Redis is refused (503), and its admin port shows
// why: Redis down, and each shard's last error, naming the user and the
// address, never the password (nor does its log).

#include "tests/integration/gateway/gateway_fixture.hpp"

#include <csignal>
#include <fstream>
#include <iterator>

namespace simsync::testing {
namespace {

TEST(redis_auth, a_carrierd_with_the_wrong_password_does_not_serve) {
  deployment d({"carrier-a"});
  gateway_client http(d);
  auto record = [](int person) {
    return nlohmann::json{{"iccid", "8986001234567890123" + std::to_string(person)},
                          {"name", "Person " + std::to_string(person)},
                          {"id_number", id_number_of(person)},
                          {"active", true}}
        .dump();
  };
  // Served with the right password.
  auto served =
      http.admin("carrier-a", "PUT", "/admin/subscribers/+8613800138000", record(1));
  EXPECT_TRUE(served.status == 200 || served.status == 201) << served;

  d.stop("carrier-a", SIGTERM);
  const std::string wrong = "wrong-password-of-the-test";
  std::ofstream(d.redis_password_file("carrier-a"), std::ios::trunc) << wrong << "\n";
  d.start("carrier-a"); // listens: its shards connect when work comes

  auto refused =
      http.admin("carrier-a", "PUT", "/admin/subscribers/+8613800138001", record(2));
  EXPECT_EQ(refused.status, 503) << refused;
  EXPECT_EQ(refused.body.find(wrong), std::string::npos);

  const auto refusal = "Redis at " + d.redis("carrier-a").endpoint().to_string() +
                       " refused the credentials of user simsync";
  nlohmann::json actors;
  bool shown = false, shard_says_why = false;
  for (int i = 0; i < 100 && !(shown && shard_says_why); ++i) {
    httplib::Client admin("127.0.0.1", d.admin_port("carrier-a"));
    auto r = admin.Get("/admin/actors");
    if (r && r->status == 200) {
      actors = nlohmann::json::parse(r->body, nullptr, false);
      shown = actors.is_object() && actors.contains("redis") &&
              !actors["redis"].value("up", true) &&
              actors["redis"].value("error", "").find(refusal) != std::string::npos;
      for (const auto& actor : actors.value("actors", nlohmann::json::array()))
        if (actor.value("last_error", "").find(refusal) != std::string::npos)
          shard_says_why = true;
    }
    if (!(shown && shard_says_why))
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  EXPECT_TRUE(shown) << actors.dump(2);
  EXPECT_TRUE(shard_says_why) << actors.dump(2);
  EXPECT_EQ(actors.dump().find(wrong), std::string::npos);

  std::ifstream log(d.dir() + "/carrier-a-n1.log");
  std::string text{std::istreambuf_iterator<char>{log}, {}};
  EXPECT_EQ(text.find(wrong), std::string::npos);
  EXPECT_EQ(text.find(d.redis("carrier-a").endpoint().password), std::string::npos);
}

} // namespace
} // namespace simsync::testing
