// Who may touch a line: only the holder of the token issued for it.
#include "tests/integration/gateway/gateway_fixture.hpp"

using namespace simsync::testing;

namespace {

struct auth : shared_deployment<auth> {
  static std::vector<std::string> carriers() { return {"carrier-a", "carrier-b"}; }
};

/// Every /v1/lines route of a line, with a body where it needs one. The store
/// checks the token in the same round trip as the work, so each route is
/// tried: none may act before the check.
struct route {
  std::string method;
  std::string suffix;
  std::string body;
  std::string content_type;
};

std::vector<route> routes_of() {
  return {{"PUT", "/contacts", card("x", "Intruder"), "text/vcard"},
          {"POST", "/contacts", card("x", "Intruder"), "text/vcard"},
          {"GET", "/contacts", "", ""},
          {"DELETE", "/contacts/x", "", ""},
          {"POST", "/update", "", ""},
          {"GET", "/pending", "", ""},
          {"POST", "/pending/ack", R"({"cursor":"1","decision":"apply"})",
           "application/json"},
          {"GET", "/history", "", ""},
          {"POST", "/restore", R"({"at":"2026-01-01T00:00:00Z"})", "application/json"},
          {"DELETE", "", "", ""}};
}

} // namespace

TEST_F(auth, a_token_opens_its_own_line_and_no_other) {
  auto mine = http.register_line("carrier-a", "+8613800139000", 10);
  auto my_other_line = http.register_line("carrier-a", "+8613800139001", 10);
  auto someone_else = http.register_line("carrier-a", "+8613800139002", 11);
  auto at_b = http.register_line("carrier-b", "+8618600189000", 10);
  ASSERT_EQ(http.push(mine, card("m1", "Mine")).status, 200);
  std::string path = "/v1/lines/" + mine.msisdn;

  for (const auto& r : routes_of()) {
    SCOPED_TRACE(r.method + " " + r.suffix);
    auto none =
        http.send("carrier-a", r.method, path + r.suffix, "", r.body, r.content_type);
    EXPECT_EQ(none.status, 401) << none;
    EXPECT_TRUE(none.is_problem()) << none;
    auto garbage = http.send("carrier-a", r.method, path + r.suffix, "not-a-token",
                             r.body, r.content_type);
    EXPECT_EQ(garbage.status, 401) << garbage;
    // Live tokens of other lines of this carrier: another person's, and the
    // same person's other line: 403.
    for (const auto* other : {&someone_else, &my_other_line}) {
      auto denied = http.send("carrier-a", r.method, path + r.suffix, other->token,
                              r.body, r.content_type);
      EXPECT_EQ(denied.status, 403) << other->msisdn << ": " << denied;
      EXPECT_TRUE(denied.is_problem()) << denied;
    }
    // Tokens this carrier never issued: the same person's line at another
    // carrier, and a token whose secret was altered: 401 invalid_token.
    auto forged = mine.token;
    forged.back() = forged.back() == 'A' ? 'B' : 'A';
    for (const auto& token : {at_b.token, forged}) {
      auto bad = http.send("carrier-a", r.method, path + r.suffix, token, r.body,
                           r.content_type);
      EXPECT_EQ(bad.status, 401) << bad;
      EXPECT_EQ(bad.json.value("type", ""), "urn:simsync:problem:invalid_token") << bad;
      EXPECT_EQ(bad.header("WWW-Authenticate"), "Bearer error=\"invalid_token\"") << bad;
    }
  }
  // A token of carrier-a's line used at carrier-b, where that number is not a line.
  auto elsewhere = http.send("carrier-b", "GET", path + "/contacts", mine.token);
  EXPECT_TRUE(elsewhere.status == 401 || elsewhere.status == 403) << elsewhere;

  // Nothing the refused requests carried reached the store.
  auto held = http.contacts(mine);
  ASSERT_EQ(held.status, 200) << held;
  EXPECT_NE(held.body.find("Mine"), std::string::npos);
  EXPECT_EQ(held.body.find("Intruder"), std::string::npos);
  // The rightful token still works on each of its lines.
  EXPECT_EQ(http.update(my_other_line).status, 200);
  EXPECT_EQ(http.update(at_b).status, 200);
}

TEST_F(auth, registering_again_replaces_the_token) {
  auto first = http.register_line("carrier-a", "+8613800139100", 12);
  auto second = http.register_sim("carrier-a", "+8613800139100");
  ASSERT_NE(first.token, second.token);
  EXPECT_EQ(http.update(second).status, 200);
  // The old token is revoked: 401, not 403.
  EXPECT_EQ(http.update(first).status, 401);
}

TEST_F(auth, a_number_cannot_be_registered_without_the_code_sent_to_it) {
  auto owner = http.register_line("carrier-a", "+8613800139200", 13);
  // Someone who knows the number and even its ICCID asks for a code: it goes
  // to the owner's phone, and guessing it fails.
  EXPECT_EQ(http.request_code("carrier-a", owner.msisdn).status, 202);
  auto code = d->last_code("carrier-a", owner.msisdn);
  auto wrong = another_code(code);
  auto guessed = http.verify("carrier-a", owner.msisdn, wrong);
  EXPECT_EQ(guessed.status, 403) << guessed;
  EXPECT_FALSE(guessed.json.contains("token"));
  // The owner's token still works.
  EXPECT_EQ(http.update(owner).status, 200);
}
