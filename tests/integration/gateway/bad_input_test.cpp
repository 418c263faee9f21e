// Malformed or oversize requests: each gets its status and a problem+json
// body, and the store is unchanged where it should be.
#include "tests/integration/gateway/gateway_fixture.hpp"

using namespace simsync::testing;

namespace {

struct bad_input : shared_deployment<bad_input> {
  static std::vector<std::string> carriers() { return {"carrier-a"}; }
};

nlohmann::json registration(const std::string& msisdn) {
  return {{"msisdn", msisdn}, {"iccid", "89860012345678901234"}};
}

} // namespace

TEST_F(bad_input, registration_names_the_field_at_fault) {
  http.add_subscriber("carrier-a", "+8613800140000", 20);
  struct bad_case {
    std::string field;
    nlohmann::json value; ///< null: the field is left out
  };
  for (const auto& c : std::vector<bad_case>{{"msisdn", "13800138000"},
                                             {"msisdn", "+0123456789"},
                                             {"msisdn", 8613800138000},
                                             {"msisdn", nullptr},
                                             {"iccid", "12ab"},
                                             {"iccid", nullptr},
                                             // The phone never says who it is.
                                             {"name", "Person 20"},
                                             {"id_number", id_number_of(20)}}) {
    auto body = registration("+8613800140000");
    if (c.value.is_null())
      body.erase(c.field);
    else
      body[c.field] = c.value;
    auto a = http.send("carrier-a", "POST", "/v1/register", "", body.dump(),
                       "application/json");
    EXPECT_EQ(a.status, 400) << c.field << " " << c.value << ": " << a;
    EXPECT_TRUE(a.is_problem()) << a;
    EXPECT_EQ(a.json.value("field", ""), c.field) << a;
  }
  // None of them sent a code.
  EXPECT_EQ(d->messages_to("carrier-a", "+8613800140000"), 0);
  for (const auto& code : {"12345", "1234567", "12a456", ""}) {
    auto a = http.verify("carrier-a", "+8613800140000", code);
    EXPECT_EQ(a.status, 400) << code << ": " << a;
    EXPECT_EQ(a.json.value("field", ""), "code") << a;
  }
  // The line's first real registration creates the account.
  auto line = http.register_sim("carrier-a", "+8613800140000");
  EXPECT_FALSE(line.token.empty());
}

TEST_F(bad_input, malformed_json_and_wrong_content_types) {
  auto broken = http.send("carrier-a", "POST", "/v1/register", "", R"({"msisdn": "+86)",
                          "application/json");
  EXPECT_EQ(broken.status, 400) << broken;
  EXPECT_TRUE(broken.is_problem()) << broken;
  auto not_object =
      http.send("carrier-a", "POST", "/v1/register", "", "[1,2]", "application/json");
  EXPECT_EQ(not_object.status, 400) << not_object;
  auto form = http.send("carrier-a", "POST", "/v1/register", "",
                        registration("+8613800140100").dump(), "text/plain");
  EXPECT_EQ(form.status, 415) << form;
  EXPECT_TRUE(form.is_problem()) << form;

  auto l = http.register_line("carrier-a", "+8613800140101", 22);
  auto ack = http.send("carrier-a", "POST", "/v1/lines/" + l.msisdn + "/pending/ack",
                       l.token, "{cursor:1}", "application/json");
  EXPECT_EQ(ack.status, 400) << ack;
  EXPECT_TRUE(ack.is_problem()) << ack;
  auto decision =
      http.send("carrier-a", "POST", "/v1/lines/" + l.msisdn + "/pending/ack", l.token,
                R"({"cursor":"1","decision":"maybe"})", "application/json");
  EXPECT_EQ(decision.status, 400) << decision;
  EXPECT_EQ(decision.json.value("field", ""), "decision");

  auto json_book = http.send("carrier-a", "PUT", "/v1/lines/" + l.msisdn + "/contacts",
                             l.token, card("j1", "Json Card"), "application/json");
  EXPECT_EQ(json_book.status, 415) << json_book;
  EXPECT_TRUE(json_book.is_problem()) << json_book;
  auto scope = http.push(l, card("j1", "Json Card"), "everywhere");
  EXPECT_EQ(scope.status, 400) << scope;
  EXPECT_EQ(scope.json.value("field", ""), "scope");
  // x-vcard is an accepted spelling.
  auto legacy = http.send("carrier-a", "POST", "/v1/lines/" + l.msisdn + "/contacts",
                          l.token, card("j2", "Legacy Type"), "text/x-vcard");
  EXPECT_EQ(legacy.status, 200) << legacy;
  auto held = http.contacts(l).body;
  EXPECT_EQ(held.find("Json Card"), std::string::npos);
  EXPECT_NE(held.find("Legacy Type"), std::string::npos);
}

TEST_F(bad_input, a_book_with_no_readable_card_stores_nothing) {
  auto l = http.register_line("carrier-a", "+8613800140200", 23);
  ASSERT_EQ(http.push(l, card("k1", "Kept")).status, 200);
  // Truncated: the card never ends.
  auto truncated = http.push(l, "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cut Off\r\nTEL:+86139");
  EXPECT_EQ(truncated.status, 422) << truncated;
  EXPECT_TRUE(truncated.is_problem()) << truncated;
  ASSERT_TRUE(truncated.json["errors"].is_array()) << truncated;
  EXPECT_EQ(truncated.json["errors"].size(), 1u);
  EXPECT_EQ(truncated.json["errors"][0].value("index", 99), 0);
  // The snapshot was refused whole: the card held before is still there.
  auto held = http.contacts(l).body;
  EXPECT_NE(held.find("Kept"), std::string::npos);
  EXPECT_EQ(held.find("Cut Off"), std::string::npos);
}

TEST_F(bad_input, one_bad_card_among_good_ones_is_reported_and_deletes_nothing) {
  auto l = http.register_line("carrier-a", "+8613800140300", 24);
  auto first = http.push(l, card("g1", "Good One") + card("g2", "Good Two") +
                                card("g3", "Good Three"));
  ASSERT_EQ(first.status, 200) << first;
  ASSERT_EQ(first.json.value("added", 0), 3);
  // A snapshot where g2 has invalid UTF-8 and g3 is left out: g1 changes,
  // g4 is new, g2 is rejected, and nothing is read as a deletion.
  std::string bad_utf8 =
      "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:g2\r\nFN:Bad \xff\xfe Name\r\n"
      "END:VCARD\r\n";
  auto second =
      http.push(l, card("g1", "Good One Renamed") + bad_utf8 + card("g4", "Good Four"));
  ASSERT_EQ(second.status, 200) << second;
  EXPECT_EQ(second.json.value("changed", 0), 1) << second;
  EXPECT_EQ(second.json.value("added", 0), 1) << second;
  EXPECT_EQ(second.json.value("removed", -1), 0) << second;
  ASSERT_EQ(second.json["rejected"].size(), 1u) << second;
  EXPECT_EQ(second.json["rejected"][0].value("index", 99), 1);
  EXPECT_EQ(second.json["rejected"][0].value("line", 0), 11); // the FN line of card 1
  EXPECT_FALSE(second.json["rejected"][0].value("reason", "").empty());
  auto held = http.contacts(l).body;
  for (auto name : {"Good One Renamed", "Good Two", "Good Three", "Good Four"})
    EXPECT_NE(held.find(name), std::string::npos) << name;
}

TEST_F(bad_input, limits_answer_413_and_422) {
  auto l = http.register_line("carrier-a", "+8613800140400", 25);
  ASSERT_EQ(http.push(l, card("h1", "Held")).status, 200);

  // A card above 1 MiB is rejected alone; its neighbours are stored.
  std::string huge = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:big\r\nFN:Big Card\r\nNOTE:" +
                     std::string((1u << 20) + 10, 'x') + "\r\nEND:VCARD\r\n";
  auto big_card = http.push(l, card("h1", "Held") + huge + card("h2", "After Big"));
  ASSERT_EQ(big_card.status, 200) << big_card;
  ASSERT_EQ(big_card.json["rejected"].size(), 1u) << big_card;
  EXPECT_EQ(big_card.json["rejected"][0].value("index", 99), 1);
  EXPECT_EQ(big_card.json["rejected"][0].value("line", 0), 8);
  EXPECT_EQ(big_card.json.value("added", 0), 1);
  EXPECT_EQ(big_card.json.value("removed", -1), 0);

  // More than 64 MiB of body: 413, nothing stored.
  std::string oversize = card("o1", "Oversize") + std::string((64u << 20) + 1, '\n');
  auto too_large = http.push(l, oversize);
  EXPECT_EQ(too_large.status, 413) << too_large;
  EXPECT_TRUE(too_large.is_problem()) << too_large;

  // More than 100,000 cards: 422, nothing stored.
  std::string many;
  for (int i = 0; i <= 100'000; ++i)
    many +=
        "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:N" + std::to_string(i) + "\r\nEND:VCARD\r\n";
  auto too_many = http.push(l, many, "", "POST");
  EXPECT_EQ(too_many.status, 422) << too_many;
  EXPECT_TRUE(too_many.is_problem()) << too_many;

  auto held = http.contacts(l).body;
  EXPECT_NE(held.find("Held"), std::string::npos);
  EXPECT_NE(held.find("After Big"), std::string::npos);
  EXPECT_EQ(held.find("Oversize"), std::string::npos);
  EXPECT_EQ(held.find("FN:N100000"), std::string::npos);
  EXPECT_EQ(held.find("Big Card"), std::string::npos);
}

TEST_F(bad_input, unknown_routes_and_methods_answer_404_problems) {
  auto a = http.send("carrier-a", "GET", "/v2/nothing");
  EXPECT_EQ(a.status, 404) << a;
  EXPECT_TRUE(a.is_problem()) << a;
}

TEST_F(bad_input, a_scope_or_query_it_cannot_read_answers_400_and_changes_nothing) {
  auto l = http.register_line("carrier-a", "+8613800140600", 27);
  ASSERT_EQ(http.push(l, card("s1", "Scoped")).status, 200);
  const auto contacts = http.lines(l) + "/contacts";
  struct bad_request {
    std::string method, path, body, content_type;
  };
  const std::vector<bad_request> requests{
      {"PUT", contacts, card("s2", "Sneaked In"), "text/vcard"},
      {"POST", contacts, card("s2", "Sneaked In"), "text/vcard"},
      {"GET", contacts, "", ""},
      {"DELETE", contacts + "/s1", "", ""},
      {"GET", http.lines(l) + "/history", "", ""}};
  for (const auto& r : requests) {
    auto unknown = http.send("carrier-a", r.method, r.path + "?scope=public", l.token,
                             r.body, r.content_type);
    EXPECT_EQ(unknown.status, 400) << r.method << " " << r.path << ": " << unknown;
    EXPECT_EQ(unknown.json.value("field", ""), "scope") << unknown;
    auto malformed = http.send("carrier-a", r.method, r.path + "?scope=%zz", l.token,
                               r.body, r.content_type);
    EXPECT_EQ(malformed.status, 400) << r.method << " " << r.path << ": " << malformed;
    EXPECT_EQ(malformed.json.value("type", ""), "urn:simsync:problem:invalid-query")
        << malformed;
  }
  auto held = http.contacts(l).body;
  EXPECT_NE(held.find("Scoped"), std::string::npos);
  EXPECT_EQ(held.find("Sneaked In"), std::string::npos);
}
