// Registration trust: only the holder of a SIM registers it. The carrier's
// subscriber registry (fed through the admin port) says whose SIM a number
// is; a one-time code sent by SMS to the number proves the phone holds it.
// Real carrierd and redis-server processes; codes read from the file SMS
// gateway of each node, as tools/cluster sms does.
#include "store/keys.hpp"
#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/at_rest_scan.hpp"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

using namespace simsync::testing;

namespace {

struct registration : shared_deployment<registration> {
  static std::vector<std::string> carriers() {
    return {"carrier-a", "carrier-b", "carrier-c"};
  }
  static void SetUpTestSuite() {
    deployment::options opts;
    opts.relay_federation = true;
    d = new deployment(carriers(), opts);
  }
};

/// One answer's type member.
std::string type_of(const http_answer& a) {
  return a.json.is_object() ? a.json.value("type", "") : "";
}

/// The refusals of POST /v1/register must not tell the three cases apart.
void expect_not_eligible(const http_answer& a) {
  EXPECT_EQ(a.status, 403) << a;
  EXPECT_EQ(type_of(a), "urn:simsync:problem:not-eligible") << a;
}

} // namespace

TEST_F(registration, a_number_that_is_not_an_eligible_subscriber_gets_no_code) {
  const std::string msisdn = "+8613800150000";
  // Not a subscriber at all.
  auto unknown = http.request_code("carrier-a", msisdn);
  expect_not_eligible(unknown);
  // A subscriber, asked with another SIM's ICCID.
  http.add_subscriber("carrier-a", msisdn, 50);
  auto wrong_sim = http.request_code("carrier-a", msisdn, "89860099999999999999");
  expect_not_eligible(wrong_sim);
  // An inactive subscription.
  http.add_subscriber("carrier-a", msisdn, 50, gateway_client::default_iccid, false);
  auto inactive = http.request_code("carrier-a", msisdn);
  expect_not_eligible(inactive);
  // One answer for all three: none tells which check failed.
  EXPECT_EQ(unknown.body, wrong_sim.body);
  EXPECT_EQ(unknown.body, inactive.body);
  EXPECT_EQ(d->messages_to("carrier-a", msisdn), 0);
  // Nothing was registered: no code is waiting.
  auto verify = http.verify("carrier-a", msisdn, "123456");
  EXPECT_EQ(verify.status, 403) << verify;
  EXPECT_EQ(type_of(verify), "urn:simsync:problem:invalid-code");
}

TEST_F(registration, a_code_is_sent_once_per_request_and_answers_when_it_expires) {
  const std::string msisdn = "+8613800150100";
  http.add_subscriber("carrier-a", msisdn, 51);
  auto sent = http.request_code("carrier-a", msisdn);
  ASSERT_EQ(sent.status, 202) << sent;
  EXPECT_EQ(sent.json.value("status", ""), "code-sent");
  EXPECT_EQ(sent.json.value("sent_via", ""), "sms");
  EXPECT_GE(sent.json.value("expires_in", 0), 299);
  EXPECT_LE(sent.json.value("expires_in", 0), 300);
  EXPECT_FALSE(sent.json.value("expires_at", "").empty());
  EXPECT_EQ(d->messages_to("carrier-a", msisdn), 1);
  auto code = d->last_code("carrier-a", msisdn);
  ASSERT_EQ(code.size(), 6u);
  // The answer carries no code; the store holds none in the clear.
  EXPECT_EQ(sent.body.find(code), std::string::npos);
  auto admin = d->redis("carrier-a").connect();
  EXPECT_TRUE(scan_at_rest(admin, "carrier-a", {{"code", code, true}}).empty());
}

TEST_F(registration, wrong_and_reused_codes_are_refused_and_register_nothing) {
  const std::string msisdn = "+8613800150200";
  http.add_subscriber("carrier-a", msisdn, 52);
  ASSERT_EQ(http.request_code("carrier-a", msisdn).status, 202);
  auto code = d->last_code("carrier-a", msisdn);
  auto wrong = another_code(code);
  auto refused = http.verify("carrier-a", msisdn, wrong);
  EXPECT_EQ(refused.status, 403) << refused;
  EXPECT_EQ(type_of(refused), "urn:simsync:problem:invalid-code");
  EXPECT_EQ(refused.json.value("attempts_left", -1), 4);
  EXPECT_FALSE(refused.json.contains("token"));
  // The right code still works once...
  auto ok = http.verify("carrier-a", msisdn, code);
  ASSERT_EQ(ok.status, 201) << ok;
  line owner{"carrier-a", msisdn, ok.json.value("token", ""),
             ok.json.value("idcode", "")};
  // ...and only once: used up, it registers nothing and revokes nothing.
  auto reused = http.verify("carrier-a", msisdn, code);
  EXPECT_EQ(reused.status, 403) << reused;
  EXPECT_EQ(type_of(reused), "urn:simsync:problem:invalid-code");
  EXPECT_EQ(http.update(owner).status, 200);
}

TEST_F(registration, five_wrong_attempts_void_the_code) {
  const std::string msisdn = "+8613800150300";
  http.add_subscriber("carrier-a", msisdn, 53);
  ASSERT_EQ(http.request_code("carrier-a", msisdn).status, 202);
  auto code = d->last_code("carrier-a", msisdn);
  auto wrong = another_code(code);
  for (int attempt = 1; attempt <= 4; ++attempt) {
    auto a = http.verify("carrier-a", msisdn, wrong);
    EXPECT_EQ(a.status, 403) << attempt << ": " << a;
    EXPECT_EQ(a.json.value("attempts_left", -1), 5 - attempt);
  }
  auto fifth = http.verify("carrier-a", msisdn, wrong);
  EXPECT_EQ(fifth.status, 429) << fifth;
  EXPECT_EQ(type_of(fifth), "urn:simsync:problem:too-many-attempts");
  EXPECT_FALSE(fifth.retry_after.empty());
  // Even the right code is refused now: nothing is registered.
  auto late = http.verify("carrier-a", msisdn, code);
  EXPECT_EQ(late.status, 429) << late;
  EXPECT_FALSE(late.json.contains("token"));
  // A new code works.
  EXPECT_FALSE(http.register_sim("carrier-a", msisdn).token.empty());
}

TEST_F(registration, the_answers_do_not_reveal_whether_a_number_has_a_line) {
  const std::string with_line = "+8613800150400", without = "+8613800150401";
  http.register_line("carrier-a", with_line, 54);
  http.add_subscriber("carrier-a", without, 55);
  auto a = http.request_code("carrier-a", with_line);
  auto b = http.request_code("carrier-a", without);
  ASSERT_EQ(a.status, 202) << a;
  ASSERT_EQ(b.status, 202) << b;
  std::vector<std::string> keys_a, keys_b;
  for (auto& [k, v] : a.json.items())
    keys_a.push_back(k);
  for (auto& [k, v] : b.json.items())
    keys_b.push_back(k);
  EXPECT_EQ(keys_a, keys_b);
  EXPECT_EQ(a.json.value("status", ""), b.json.value("status", ""));
}

TEST_F(registration, registering_again_needs_a_new_code_and_revokes_the_old_token) {
  auto first = http.register_line("carrier-a", "+8613800150500", 56);
  ASSERT_EQ(http.push(first, card("r1", "Kept")).status, 200);
  auto second = http.register_sim("carrier-a", first.msisdn);
  ASSERT_FALSE(second.token.empty());
  EXPECT_EQ(second.idcode, first.idcode);
  auto revoked = http.update(first);
  EXPECT_EQ(revoked.status, 401) << revoked;
  EXPECT_EQ(type_of(revoked), "urn:simsync:problem:invalid_token");
  // The new phone has the line's book.
  EXPECT_NE(http.contacts(second).body.find("Kept"), std::string::npos);
}

TEST_F(registration, deactivating_the_subscriber_retires_the_line_at_once) {
  auto line1 = http.register_line("carrier-a", "+8613800150600", 57);
  ASSERT_EQ(http.push(line1, card("d1", "Gone Soon")).status, 200);
  auto off = http.add_subscriber("carrier-a", line1.msisdn, 57,
                                 gateway_client::default_iccid, false);
  EXPECT_EQ(off.status, 200) << off;
  EXPECT_TRUE(off.json.value("line_retired", false)) << off;
  EXPECT_EQ(http.update(line1).status, 401);
  expect_not_eligible(http.request_code("carrier-a", line1.msisdn));
  // The account went with its last line: nothing of it is left in the store.
  auto store = d->redis("carrier-a").connect();
  EXPECT_EQ(store.call({"EXISTS", "acct:{" + line1.idcode + "}"})->view().integer(), 0);
  auto sim_key = simsync::store::keys::sim(d->line_id("carrier-a", line1.msisdn));
  EXPECT_EQ(store.call({"EXISTS", sim_key})->view().integer(), 0);
  // Active again, the SIM registers a fresh line and account.
  http.add_subscriber("carrier-a", line1.msisdn, 57);
  ASSERT_EQ(http.request_code("carrier-a", line1.msisdn).status, 202);
  auto again =
      http.verify("carrier-a", line1.msisdn, d->last_code("carrier-a", line1.msisdn));
  EXPECT_EQ(again.status, 201) << again;
  EXPECT_TRUE(again.json.value("account_created", false)) << again;
}

TEST_F(registration,
       deleting_the_subscriber_retires_the_line_and_a_recycled_number_starts_afresh) {
  auto old_owner = http.register_line("carrier-a", "+8613800150700", 58);
  ASSERT_EQ(http.push(old_owner, card("p1", "Old Owner's Friend")).status, 200);
  auto deleted =
      http.admin("carrier-a", "DELETE", "/admin/subscribers/" + old_owner.msisdn);
  EXPECT_EQ(deleted.status, 200) << deleted;
  EXPECT_TRUE(deleted.json.value("line_retired", false)) << deleted;
  EXPECT_EQ(http.update(old_owner).status, 401);
  EXPECT_EQ(
      http.admin("carrier-a", "DELETE", "/admin/subscribers/" + old_owner.msisdn).status,
      404);
  // The number goes to another person.
  auto new_owner = http.register_line("carrier-a", old_owner.msisdn, 59);
  ASSERT_FALSE(new_owner.token.empty());
  EXPECT_NE(new_owner.idcode, old_owner.idcode);
  EXPECT_EQ(http.contacts(new_owner).body.find("Old Owner"), std::string::npos);
  EXPECT_EQ(http.pending_added(new_owner), 0);
}

TEST_F(registration, a_stranger_with_a_sim_of_their_own_cannot_reach_a_persons_cards) {
  // Person 60 at carriers a and b, sharing a book.
  auto a = http.register_line("carrier-a", "+8613800150800", 60);
  auto b = http.register_line("carrier-b", "+8618600150800", 60);
  ASSERT_EQ(http.push(a, card("s1", "Secret Friend")).status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; }));
  // Someone else, with a real subscription of their own at carrier c. They
  // know person 60's name and ID number, but the phone cannot say them.
  auto stranger = http.register_line("carrier-c", "+8615000150800", 61);
  ASSERT_FALSE(stranger.token.empty());
  EXPECT_NE(stranger.idcode, a.idcode);
  auto claims = http.send("carrier-c", "POST", "/v1/register", "",
                          nlohmann::json{{"msisdn", stranger.msisdn},
                                         {"iccid", gateway_client::default_iccid},
                                         {"name", "Person 60"},
                                         {"id_number", id_number_of(60)}}
                              .dump(),
                          "application/json");
  EXPECT_EQ(claims.status, 400) << claims;
  // The stranger's own line holds none of person 60's cards.
  EXPECT_EQ(http.contacts(stranger).body.find("Secret Friend"), std::string::npos);
  EXPECT_EQ(http.pending_added(stranger), 0);
  // The stranger's token opens no route of person 60's lines, at any carrier.
  for (const auto* target : {&a, &b}) {
    auto base = gateway_client::lines(*target);
    for (const auto& [method, path] :
         std::vector<std::pair<std::string, std::string>>{{"GET", "/contacts"},
                                                          {"PUT", "/contacts"},
                                                          {"POST", "/contacts"},
                                                          {"DELETE", "/contacts/s1"},
                                                          {"POST", "/update"},
                                                          {"GET", "/pending"},
                                                          {"GET", "/history"},
                                                          {"DELETE", ""}}) {
      auto r = http.send(target->carrier, method, base + path, stranger.token,
                         card("x1", "Intruder"), "text/vcard");
      EXPECT_EQ(r.status, 401) << method << " " << path << ": " << r;
    }
  }
  // Taking person 60's own number over needs the code sent to that number.
  ASSERT_EQ(http.request_code("carrier-a", a.msisdn).status, 202);
  for (int i = 0; i < 5; ++i) {
    auto guess = http.verify("carrier-a", a.msisdn, std::to_string(100000 + i));
    EXPECT_TRUE(guess.status == 403 || guess.status == 429) << guess;
    EXPECT_FALSE(guess.json.contains("token"));
  }
  // Person 60's token still works, and the book is untouched.
  auto held = http.contacts(a);
  ASSERT_EQ(held.status, 200) << held;
  EXPECT_NE(held.body.find("Secret Friend"), std::string::npos);
  EXPECT_EQ(held.body.find("Intruder"), std::string::npos);
}

TEST_F(registration, the_raw_id_number_never_leaves_its_carrier_in_the_clear) {
  // A person with a PRC resident ID at a and b, with a shared book.
  const std::string id_number = "11010519491231002X", name = "王秀英";
  auto enrol = [&](const std::string& carrier, const std::string& msisdn) {
    auto a = http.enrol_and_register(carrier, msisdn, gateway_client::default_iccid, name,
                                     id_number);
    EXPECT_EQ(a.status, 201) << a;
    return line{carrier, msisdn, a.json.value("token", ""), a.json.value("idcode", "")};
  };
  auto a = enrol("carrier-a", "+8613800150900");
  auto b = enrol("carrier-b", "+8618600150900");
  ASSERT_EQ(http.push(a, card("i1", "Friend")).status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; }));
  auto c = http.register_line("carrier-c", "+8615000150900", 62);
  ASSERT_FALSE(c.token.empty());
  for (const std::string carrier : {"carrier-a", "carrier-b", "carrier-c"}) {
    auto admin = d->redis(carrier).connect();
    for (const auto& found :
         scan_at_rest(admin, carrier, {{"ID number", id_number}, {"name", name}}))
      ADD_FAILURE() << found;
  }
  auto between = d->federation_bytes();
  EXPECT_FALSE(between.empty()); // the relays did carry the replication
  EXPECT_EQ(between.find(id_number), std::string::npos);
  EXPECT_EQ(between.find(name), std::string::npos);
  // Between carriers everything travels inside TLS: a connection opens with
  // a TLS handshake record, and not even the idcode or a card is readable.
  EXPECT_EQ(between.substr(0, 2), std::string("\x16\x03", 2));
  EXPECT_EQ(between.find(a.idcode), std::string::npos);
  EXPECT_EQ(between.find("Friend"), std::string::npos);
}

TEST_F(registration, the_registry_is_written_only_with_the_admin_credential) {
  const std::string path = "/admin/subscribers/+8613800151200";
  const std::string record =
      R"({"iccid":"89860012345678901234","name":"Person 63","id_number":"TEST100063"})";
  const std::string bulk =
      R"({"msisdn":"+8613800151200","iccid":"89860012345678901234","name":"Person 63","id_number":"TEST100063"})";
  for (const auto& key :
       {std::string(), std::string("wrong-key"), d->admin_key("carrier-b")}) {
    SCOPED_TRACE(key.empty() ? "no key" : key);
    auto put = http.admin("carrier-a", "PUT", path, record, "application/json", key);
    EXPECT_EQ(put.status, 401) << put;
    auto del = http.admin("carrier-a", "DELETE", path, "", "", key);
    EXPECT_EQ(del.status, 401) << del;
    auto post = http.admin("carrier-a", "POST", "/admin/subscribers", bulk,
                           "application/x-ndjson", key);
    EXPECT_EQ(post.status, 401) << post;
  }
  // Nothing was written: the number is no subscriber.
  expect_not_eligible(http.request_code("carrier-a", "+8613800151200"));
  // The metrics stay open to the operator on loopback.
  EXPECT_EQ(http.admin("carrier-a", "GET", "/metrics", "", "", "").status, 200);
}

TEST_F(registration, a_bulk_import_writes_every_record_or_none) {
  std::string ndjson;
  for (int i = 0; i < 20; ++i)
    ndjson += nlohmann::json{{"msisdn", "+86138001513" + std::to_string(10 + i)},
                             {"iccid", gateway_client::default_iccid},
                             {"name", "Person " + std::to_string(80 + i)},
                             {"id_number", id_number_of(80 + i)}}
                  .dump() +
              "\n";
  // One bad record (line 21): nothing is written.
  auto bad =
      ndjson +
      R"({"msisdn":"+8613800151399","iccid":"12","name":"X","id_number":"TEST100099"})";
  auto refused =
      http.admin("carrier-a", "POST", "/admin/subscribers", bad, "application/x-ndjson");
  EXPECT_EQ(refused.status, 422) << refused;
  ASSERT_TRUE(refused.json.contains("errors")) << refused;
  EXPECT_EQ(refused.json["errors"].size(), 1u);
  EXPECT_EQ(refused.json["errors"][0].value("line", 0), 21);
  expect_not_eligible(http.request_code("carrier-a", "+8613800151310"));
  // All good: every record is written, and each SIM can register.
  auto loaded = http.admin("carrier-a", "POST", "/admin/subscribers", ndjson,
                           "application/x-ndjson");
  ASSERT_EQ(loaded.status, 200) << loaded;
  EXPECT_EQ(loaded.json.value("created", 0), 20);
  auto first = http.register_sim("carrier-a", "+8613800151310");
  ASSERT_FALSE(first.token.empty());
  // The same import again changes nothing: the registered line keeps working.
  auto again = http.admin("carrier-a", "POST", "/admin/subscribers", ndjson,
                          "application/x-ndjson");
  EXPECT_EQ(again.json.value("unchanged", 0), 20) << again;
  EXPECT_EQ(again.json.value("lines_retired", -1), 0) << again;
  EXPECT_EQ(http.update(first).status, 200);
  // CSV, with a quoted name and an inactive SIM.
  auto csv = std::string("msisdn,iccid,name,id_number,active\n") +
             "+8613800151400,89860012345678901234,\"Zhang, Wei\",TEST100101,true\n" +
             "+8613800151401,89860012345678901234,Person 102,TEST100102,false\n";
  auto from_csv = http.admin("carrier-a", "POST", "/admin/subscribers", csv, "text/csv");
  ASSERT_EQ(from_csv.status, 200) << from_csv;
  EXPECT_EQ(from_csv.json.value("created", 0), 2);
  EXPECT_EQ(http.request_code("carrier-a", "+8613800151400").status, 202);
  expect_not_eligible(http.request_code("carrier-a", "+8613800151401"));
}

// -- limits, on deployments of their own --------------------------------------

namespace {

struct registration_limits : ::testing::Test {};

deployment* limited(int codes_per_msisdn, int code_ttl_seconds,
                    int requests_per_address) {
  deployment::options opts;
  opts.codes_per_msisdn = codes_per_msisdn;
  opts.code_ttl_seconds = code_ttl_seconds;
  opts.requests_per_address = requests_per_address;
  return new deployment({"carrier-a"}, opts);
}

} // namespace

TEST_F(registration_limits, codes_expire_and_a_number_gets_only_a_few) {
  std::unique_ptr<deployment> d{limited(3, 1, 1000)};
  gateway_client http{*d};
  const std::string msisdn = "+8613800151000";
  http.add_subscriber("carrier-a", msisdn, 70);
  ASSERT_EQ(http.request_code("carrier-a", msisdn).status, 202);
  auto code = d->last_code("carrier-a", msisdn);
  std::this_thread::sleep_for(std::chrono::milliseconds{1500});
  auto expired = http.verify("carrier-a", msisdn, code);
  EXPECT_EQ(expired.status, 410) << expired;
  EXPECT_EQ(type_of(expired), "urn:simsync:problem:code-expired");
  EXPECT_FALSE(expired.json.contains("token"));
  // Three codes in the window; the fourth is refused and not sent.
  EXPECT_EQ(http.request_code("carrier-a", msisdn).status, 202);
  EXPECT_EQ(http.request_code("carrier-a", msisdn).status, 202);
  auto fourth = http.request_code("carrier-a", msisdn);
  EXPECT_EQ(fourth.status, 429) << fourth;
  EXPECT_EQ(type_of(fourth), "urn:simsync:problem:too-many-codes");
  auto wait = std::stoi(fourth.retry_after.empty() ? "0" : fourth.retry_after);
  EXPECT_GT(wait, 500);
  EXPECT_LE(wait, 600);
  EXPECT_EQ(d->messages_to("carrier-a", msisdn), 3);
  // Another number is not held back by this one's limit.
  http.add_subscriber("carrier-a", "+8613800151001", 71);
  EXPECT_EQ(http.request_code("carrier-a", "+8613800151001").status, 202);
}

TEST_F(registration_limits, one_client_address_gets_only_so_many_tries) {
  std::unique_ptr<deployment> d{limited(1000, 300, 4)};
  gateway_client http{*d};
  http.add_subscriber("carrier-a", "+8613800151100", 72);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(http.request_code("carrier-a", "+8613800151100").status, 202) << i;
  auto fifth = http.request_code("carrier-a", "+8613800151100");
  EXPECT_EQ(fifth.status, 429) << fifth;
  EXPECT_EQ(type_of(fifth), "urn:simsync:problem:too-many-requests");
  EXPECT_FALSE(fifth.retry_after.empty());
  EXPECT_EQ(d->messages_to("carrier-a", "+8613800151100"), 4);
  // The verify endpoint counts on its own: four guesses, then 429.
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(http.verify("carrier-a", "+8613800151100", "000000").status == 429, false);
  auto guess = http.verify("carrier-a", "+8613800151100", "000000");
  EXPECT_EQ(guess.status, 429) << guess;
  EXPECT_EQ(type_of(guess), "urn:simsync:problem:too-many-requests");
}

TEST_F(registration_limits, codes_go_out_through_an_http_sms_gateway) {
  // A real HTTP server standing in for the carrier's SMS gateway.
  httplib::Server sms;
  std::mutex mtx;
  std::vector<nlohmann::json> received;
  bool failing = false;
  sms.Post("/send", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> guard{mtx};
    if (failing) {
      res.status = 500;
      return;
    }
    received.push_back(nlohmann::json::parse(req.body, nullptr, false));
    res.status = 200;
  });
  int port = sms.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { sms.listen_after_bind(); });
  {
    deployment::options opts;
    opts.sms_url = "http://127.0.0.1:" + std::to_string(port) + "/send";
    deployment d{{"carrier-a"}, opts};
    gateway_client http{d};
    const std::string msisdn = "+8613800151500";
    http.add_subscriber("carrier-a", msisdn, 73);
    ASSERT_EQ(http.request_code("carrier-a", msisdn).status, 202);
    std::string code;
    {
      std::lock_guard<std::mutex> guard{mtx};
      ASSERT_EQ(received.size(), 1u);
      EXPECT_EQ(received[0].value("to", ""), msisdn);
      auto text = received[0].value("text", "");
      auto at = text.find_first_of("0123456789");
      ASSERT_NE(at, std::string::npos) << text;
      code = text.substr(at, 6);
      failing = true;
    }
    auto ok = http.verify("carrier-a", msisdn, code);
    EXPECT_EQ(ok.status, 201) << ok;
    // The gateway fails: the phone is told, and may retry later.
    auto refused = http.request_code("carrier-a", msisdn);
    EXPECT_EQ(refused.status, 503) << refused;
    EXPECT_EQ(type_of(refused), "urn:simsync:problem:sms-unavailable");
  }
  sms.stop();
  serving.join();
}
