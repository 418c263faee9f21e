// Nothing personal is readable at rest, to whoever reaches a Redis port, a
// backup or a disk (docs/architecture.md, trust model): after every flow that
// stores personal data has run across three carriers, no key or value of any
// carrier's Redis, and no byte of its append-only or RDB files, holds a card's
// text, a person's name or ID number, an MSISDN or ICCID, a line token or a
// registration code.
//
// Each category is asserted on its own, and every finding names the Redis,
// key and field (or file) holding it.
#include "net/instant.hpp"
#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/at_rest_scan.hpp"
#include "tests/support/random_hex.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

/// `count` random decimal digits.
std::string random_digits(int count) {
  std::random_device source;
  std::string out;
  for (int i = 0; i < count; ++i)
    out += static_cast<char>('0' + source() % 10);
  return out;
}

/// A text that cannot occur by chance: `prefix` and 12 random hex digits.
std::string marker(const std::string& prefix) {
  return prefix + random_hex(12);
}

/// A contact card whose every personal field is a marker, and the needles
/// that find them.
struct marked_card {
  std::string uid;
  std::string vcard;
  std::vector<needle> needles;
};

marked_card marked(const std::string& uid) {
  auto given = marker("Zqg"), family = marker("Zqf"), street = marker("Zqs"),
       city = marker("Zqc"), note = marker("Zqn"), org = marker("Zqo"),
       email = marker("zqe") + "@example.org", tel = "+86139" + random_digits(8);
  marked_card out;
  out.uid = uid;
  out.vcard = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + given + " " +
              family + "\r\nN:" + family + ";" + given + ";;;\r\nTEL;TYPE=CELL:" + tel +
              "\r\nEMAIL:" + email + "\r\nADR;TYPE=HOME:;;" + street + ";" + city +
              ";;;\r\nNOTE:met at " + note + "\r\nORG:" + org + "\r\nEND:VCARD\r\n";
  for (const auto& text : {given, family, street, city, note, org, email})
    out.needles.push_back({"card text", text});
  out.needles.push_back({"card phone number", tel});
  out.needles.push_back({"card phone number", tel.substr(1)});
  return out;
}

/// Where a finding is, without what differs from run to run (idcodes,
/// numbers, uids, stream entry ids, temporary folders, counts): the places
/// that still hold something in the clear, each named once.
std::string place_of(const finding& f) {
  static const std::regex count{R"( \(\d+ times\))"};
  static const std::regex varying{
      R"(\{[0-9a-f]{64}\}|\b\d+-\d+\b|\b[a-z]\d-[0-9a-f]{8}\b|\+?\d{8,}|/tmp/[^/]+/)"};
  return std::regex_replace(std::regex_replace(f.where, count, ""), varying, "*");
}

const std::vector<std::string> categories = {
    "card text", "card phone number", "person name",      "ID number", "MSISDN",
    "ICCID",     "line token secret", "registration code"};

struct at_rest : shared_deployment<at_rest> {
  static std::vector<std::string> carriers() {
    return {"carrier-a", "carrier-b", "carrier-c"};
  }

  std::vector<needle> needles;

  /// A random SIM of the person at `carrier`, in its subscriber registry.
  std::pair<std::string, std::string> subscribe(const std::string& carrier,
                                                const std::string& name,
                                                const std::string& id_number) {
    auto msisdn = "+86138" + random_digits(8);
    auto iccid = "8986" + random_digits(16);
    nlohmann::json record{{"iccid", iccid}, {"name", name}, {"id_number", id_number}};
    auto a = http.admin(carrier, "PUT", "/admin/subscribers/" + msisdn, record.dump());
    EXPECT_TRUE(a.status == 200 || a.status == 201) << a;
    needles.push_back({"MSISDN", msisdn});
    needles.push_back({"MSISDN", msisdn.substr(1)});
    needles.push_back({"ICCID", iccid});
    return {msisdn, iccid};
  }

  /// Registers the SIM's line (code by SMS, then the code back).
  line register_line(const std::string& carrier, const std::string& msisdn,
                     const std::string& iccid) {
    auto l = http.register_sim(carrier, msisdn, iccid);
    needles.push_back({"registration code", d->last_code(carrier, msisdn), true});
    auto dot = l.token.rfind('.');
    EXPECT_NE(dot, std::string::npos) << "a token is <idcode>.<secret>";
    if (dot != std::string::npos)
      needles.push_back({"line token secret", l.token.substr(dot + 1)});
    return l;
  }

  marked_card card(const std::string& uid) {
    auto c = marked(uid);
    needles.insert(needles.end(), c.needles.begin(), c.needles.end());
    return c;
  }

  /// Waits until `l`'s update request finds at least `changes` pending,
  /// then fetches them and answers with `decision`.
  void take(const line& l, int changes, const std::string& decision) {
    ASSERT_TRUE(eventually([&] {
      auto a = http.update(l);
      return a.status == 200 && a.json.value("added", 0) + a.json.value("changed", 0) +
                                        a.json.value("removed", 0) >=
                                    changes;
    })) << http.update(l);
    auto fetched = http.pending(l);
    ASSERT_EQ(fetched.status, 200) << fetched;
    auto acked = http.ack(l, fetched.json.value("cursor", ""), decision);
    ASSERT_EQ(acked.status, 200) << acked;
  }
};

} // namespace

TEST_F(at_rest, no_personal_data_is_readable_in_any_redis_or_its_files) {
  // F1: one person with lines at carrier-a and carrier-b, and a SIM at
  // carrier-c that never registers (its registry holds the person all the same).
  auto name = marker("Zqp"), id_number = "ZQ" + random_digits(14);
  needles.push_back({"person name", name});
  needles.push_back({"ID number", id_number});
  auto [msisdn_a, iccid_a] = subscribe("carrier-a", name, id_number);
  auto [msisdn_b, iccid_b] = subscribe("carrier-b", name, id_number);
  subscribe("carrier-c", name, id_number);
  auto a = register_line("carrier-a", msisdn_a, iccid_a);
  auto b = register_line("carrier-b", msisdn_b, iccid_b);
  ASSERT_FALSE(a.token.empty());
  ASSERT_FALSE(b.token.empty());
  ASSERT_EQ(a.idcode, b.idcode);

  // F2, F3: a shared snapshot at a; F5, F6: b applies it.
  auto c1 = card("c1-" + random_hex(8)), c2 = card("c2-" + random_hex(8)),
       c3 = card("c3-" + random_hex(8));
  auto pushed = http.push(a, c1.vcard + c2.vcard + c3.vcard);
  ASSERT_EQ(pushed.status, 200) << pushed;
  ASSERT_NO_FATAL_FAILURE(take(b, 3, "apply"));
  // The point a restore returns to.
  std::this_thread::sleep_for(std::chrono::milliseconds{20});
  auto before_edits = net::rfc3339_of(
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count()));
  std::this_thread::sleep_for(std::chrono::milliseconds{20});

  // A delta edit of c1 and a deletion of c2 at a; b discards them.
  auto c1_edited = card(c1.uid);
  auto edited = http.push(a, c1_edited.vcard, "shared", "POST");
  ASSERT_EQ(edited.status, 200) << edited;
  auto removed = http.send("carrier-a", "DELETE",
                           gateway_client::lines(a) + "/contacts/" + c2.uid, a.token);
  ASSERT_EQ(removed.status, 200) << removed;
  ASSERT_NO_FATAL_FAILURE(take(b, 2, "discard"));

  // F7: a private upload at a.
  auto p1 = card("p1-" + random_hex(8));
  auto kept = http.push(a, p1.vcard, "private");
  ASSERT_EQ(kept.status, 200) << kept;

  // A delta from b that a applies.
  auto c4 = card("c4-" + random_hex(8));
  ASSERT_EQ(http.push(b, c4.vcard, "shared", "POST").status, 200);
  ASSERT_NO_FATAL_FAILURE(take(a, 1, "apply"));

  // History at both carriers, then a restore at a to before the edits.
  for (const auto& l : {a, b}) {
    auto history =
        http.send(l.carrier, "GET", gateway_client::lines(l) + "/history", l.token);
    ASSERT_EQ(history.status, 200) << history;
  }
  nlohmann::json restore{{"at", before_edits}, {"scope", "shared"}, {"preview", false}};
  auto restored = http.send("carrier-a", "POST", gateway_client::lines(a) + "/restore",
                            a.token, restore.dump(), "application/json");
  ASSERT_EQ(restored.status, 200) << restored;
  ASSERT_NO_FATAL_FAILURE(take(b, 1, "apply"));
  // Settled: both shared stores hold the same book.
  ASSERT_TRUE(eventually([&] {
    return card_set(http.contacts(a).body) == card_set(http.contacts(b).body);
  })) << http.contacts(a).body
      << "\n--- carrier-b:\n"
      << http.contacts(b).body;

  // A canary in each Redis proves the scan reads its keys and its files: a
  // scanner that saw nothing would pass this test once everything is sealed.
  auto canary = marker("Zqk");
  needles.push_back({"scanner canary", canary});
  std::map<std::string, std::vector<finding>> found;
  for (const auto& carrier : carriers()) { // one node, so one Redis, each
    auto redis = d->redis(carrier).connect();
    ASSERT_TRUE(redis.call({"HSET", "at-rest-canary", "field", canary}));
    auto server = carrier + "'s Redis";
    auto findings = scan_at_rest(redis, server, needles);
    auto canaries = std::count_if(findings.begin(), findings.end(), [](const finding& f) {
      return f.category == "scanner canary";
    });
    EXPECT_EQ(canaries, 2) << "the canary in " << server << "'s keys and in its AOF";
    for (auto& f : findings)
      found[f.category].push_back(std::move(f));
  }
  for (const auto& category : categories) {
    const auto& list = found[category];
    std::map<std::string, int> places;
    for (const auto& f : list)
      ++places[place_of(f)];
    std::ostringstream shown;
    for (const auto& [place, count] : places)
      shown << "\n  " << count << " in " << place;
    shown << "\nfor example:";
    for (std::size_t i = 0; i < list.size() && i < 4; ++i)
      shown << "\n  " << list[i];
    EXPECT_TRUE(list.empty()) << list.size() << " " << category
                              << " finding(s) at rest, in these places:" << shown.str();
  }
}
