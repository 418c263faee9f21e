#pragma once

// Drives carrierd processes through their terminal HTTP API, as a phone does:
// real carrierd and redis-server processes on loopback, a blocking
// cpp-httplib client on the test's side only.

#include "config/node_config.hpp"
#include "tests/integration/node/node_fixture.hpp" // eventually()
#include "tests/support/carrier_process.hpp"

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

namespace simsync::testing {

/// One HTTP answer, with its JSON body parsed when it is JSON.
struct http_answer {
  int status = 0;
  std::string content_type;
  std::string retry_after;  ///< the Retry-After header, when given
  std::string etag;         ///< the ETag header, when given
  std::string body;         ///< as sent: still compressed if Content-Encoding says so
  nlohmann::json json;      ///< null unless the body parsed as JSON
  httplib::Headers headers; ///< every response header, as sent

  /// A response header's value ("" when absent; the first when repeated).
  std::string header(const std::string& name) const {
    auto it = headers.find(name); // httplib::Headers compares names case-insensitively
    return it == headers.end() ? std::string() : it->second;
  }

  bool is_problem() const {
    return content_type == "application/problem+json" && json.is_object() &&
           json.contains("type") && json.contains("title") && json.contains("detail") &&
           json.value("status", 0) == status;
  }
};

inline std::ostream& operator<<(std::ostream& os, const http_answer& a) {
  return os << a.status << " " << a.content_type << " " << a.body.substr(0, 400);
}

/// A registered line as the phone holds it.
struct line {
  std::string carrier;
  std::string msisdn;
  std::string token;
  std::string idcode;
};

/// A number (<prefix>10 to <prefix>99) whose line, and subscriber record,
/// lives on node `node` of the carrier's two: a line id is a keyed hash, so
/// which number that is depends on the deployment's keys.
inline std::string number_on_node(const deployment& d, const std::string& carrier,
                                  const std::string& prefix, int node) {
  for (int i = 10; i < 100; ++i) {
    auto msisdn = prefix + std::to_string(i);
    if (config::shard_of_line(d.line_id(carrier, msisdn), d.shards()) % 2 == node)
      return msisdn;
  }
  throw std::runtime_error("no number " + prefix + "xx lives on node " +
                           std::to_string(node));
}

/// Person i's user info: a distinct, valid (non-PRC form) ID number each.
inline std::string id_number_of(int person) {
  return "TEST" + std::to_string(100000 + person);
}

class gateway_client {
public:
  explicit gateway_client(deployment& d) : d_(d) {}

  /// Sends one request. `headers` are added as given (e.g. Content-Encoding
  /// over a body the test compressed itself). Bodies come back as sent: the
  /// client never decompresses, and asks for identity unless `headers` name
  /// an Accept-Encoding.
  http_answer send(const std::string& carrier, const std::string& method,
                   const std::string& path, const std::string& token = "",
                   const std::string& body = "", const std::string& content_type = "",
                   httplib::Headers headers = {}, int node = 0) {
    httplib::Client client("127.0.0.1", d_.gateway_port(carrier, node));
    client.set_url_encode(false); // paths are written as a phone sends them
    client.set_decompress(false);
    if (headers.find("Accept-Encoding") == headers.end())
      headers.emplace("Accept-Encoding", "identity");
    client.set_read_timeout(std::chrono::seconds{60});
    client.set_write_timeout(std::chrono::seconds{60});
    if (!token.empty())
      headers.emplace("Authorization", "Bearer " + token);
    auto r = [&] {
      if (method == "GET")
        return client.Get(path, headers);
      if (method == "DELETE")
        return client.Delete(path, headers);
      if (method == "PUT")
        return client.Put(path, headers, body, content_type);
      if (method == "PATCH")
        return client.Patch(path, headers, body, content_type);
      if (method == "HEAD")
        return client.Head(path, headers);
      if (method == "OPTIONS")
        return client.Options(path, headers);
      return client.Post(path, headers, body, content_type);
    }();
    return answer_of(r, method + " " + path + " at " + carrier);
  }

  /// A request to the carrier's admin port, with its admin credential
  /// unless `key` says otherwise ("" sends none).
  http_answer admin(const std::string& carrier, const std::string& method,
                    const std::string& path, const std::string& body = "",
                    const std::string& content_type = "application/json",
                    std::optional<std::string> key = std::nullopt, int node = 0) {
    httplib::Client client("127.0.0.1", d_.admin_port(carrier, node));
    client.set_url_encode(false);
    client.set_read_timeout(std::chrono::seconds{60});
    httplib::Headers headers;
    auto credential = key ? *key : d_.admin_key(carrier);
    if (!credential.empty())
      headers.emplace("Authorization", "Bearer " + credential);
    auto r = method == "PUT"      ? client.Put(path, headers, body, content_type)
             : method == "DELETE" ? client.Delete(path, headers)
             : method == "GET"    ? client.Get(path, headers)
                                  : client.Post(path, headers, body, content_type);
    return answer_of(r, method + " " + path + " at " + carrier + "'s admin port");
  }

  /// Person i's subscriber record for `msisdn` at the carrier (created or
  /// replaced); fails the test unless the carrier takes it.
  http_answer add_subscriber(const std::string& carrier, const std::string& msisdn,
                             int person, const std::string& iccid = default_iccid,
                             bool active = true) {
    nlohmann::json record{{"iccid", iccid},
                          {"name", "Person " + std::to_string(person)},
                          {"id_number", id_number_of(person)},
                          {"active", active}};
    // A node's admin port learns its sibling nodes' shards shortly after
    // they start: until then a record for one of theirs is 503.
    auto a = admin(carrier, "PUT", "/admin/subscribers/" + msisdn, record.dump());
    for (int i = 0; i < 100 && a.status == 503; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
      a = admin(carrier, "PUT", "/admin/subscribers/" + msisdn, record.dump());
    }
    EXPECT_TRUE(a.status == 200 || a.status == 201) << a;
    return a;
  }

  /// F1's first step: asks for a code by SMS.
  http_answer request_code(const std::string& carrier, const std::string& msisdn,
                           const std::string& iccid = default_iccid) {
    nlohmann::json body{{"msisdn", msisdn}, {"iccid", iccid}};
    return send(carrier, "POST", "/v1/register", "", body.dump(), "application/json");
  }

  /// F1's second step: the code back, for the line's token.
  http_answer verify(const std::string& carrier, const std::string& msisdn,
                     const std::string& code) {
    nlohmann::json body{{"msisdn", msisdn}, {"code", code}};
    return send(carrier, "POST", "/v1/register/verify", "", body.dump(),
                "application/json");
  }

  /// Registers `msisdn`'s line as its subscriber does: a code by SMS, then
  /// the code back. Fails the test unless both steps succeed.
  line register_sim(const std::string& carrier, const std::string& msisdn,
                    const std::string& iccid = default_iccid) {
    auto sent = request_code(carrier, msisdn, iccid);
    EXPECT_EQ(sent.status, 202) << sent;
    auto a = verify(carrier, msisdn, d_.last_code(carrier, msisdn));
    EXPECT_TRUE(a.status == 200 || a.status == 201) << a;
    line out{carrier, msisdn, "", ""};
    if (a.json.is_object()) {
      out.token = a.json.value("token", "");
      out.idcode = a.json.value("idcode", "");
    }
    return out;
  }

  /// Makes `msisdn` the subscription of the person named at the carrier,
  /// then registers its line; returns the verify step's answer.
  http_answer enrol_and_register(const std::string& carrier, const std::string& msisdn,
                                 const std::string& iccid, const std::string& name,
                                 const std::string& id_number) {
    nlohmann::json record{{"iccid", iccid}, {"name", name}, {"id_number", id_number}};
    auto enrolled = admin(carrier, "PUT", "/admin/subscribers/" + msisdn, record.dump());
    EXPECT_TRUE(enrolled.status == 200 || enrolled.status == 201) << enrolled;
    auto sent = request_code(carrier, msisdn, iccid);
    EXPECT_EQ(sent.status, 202) << sent;
    return verify(carrier, msisdn, d_.last_code(carrier, msisdn));
  }

  /// Makes `msisdn` person i's subscription at the carrier, then registers
  /// its line; fails the test unless it succeeds.
  line register_line(const std::string& carrier, const std::string& msisdn, int person) {
    add_subscriber(carrier, msisdn, person);
    return register_sim(carrier, msisdn);
  }

  static inline const std::string default_iccid = "89860012345678901234";

  static std::string lines(const line& l) { return "/v1/lines/" + l.msisdn; }

  http_answer push(const line& l, const std::string& book, const std::string& scope = "",
                   const std::string& method = "PUT") {
    return send(l.carrier, method,
                lines(l) + "/contacts" + (scope.empty() ? "" : "?scope=" + scope),
                l.token, book, "text/vcard");
  }

  http_answer contacts(const line& l, const std::string& query = "") {
    return send(l.carrier, "GET", lines(l) + "/contacts" + query, l.token);
  }

  http_answer update(const line& l) {
    return send(l.carrier, "POST", lines(l) + "/update", l.token);
  }

  http_answer pending(const line& l, const std::string& query = "",
                      httplib::Headers headers = {}) {
    return send(l.carrier, "GET", lines(l) + "/pending" + query, l.token, "", "",
                std::move(headers));
  }

  http_answer ack(const line& l, const std::string& cursor, const std::string& decision) {
    nlohmann::json body{{"cursor", cursor}, {"decision", decision}};
    return send(l.carrier, "POST", lines(l) + "/pending/ack", l.token, body.dump(),
                "application/json");
  }

  /// The line's pending "added" count after an update request (-1 on error).
  long pending_added(const line& l) {
    auto a = update(l);
    return a.status == 200 ? a.json.value("added", -1L) : -1L;
  }

private:
  /// The answer as a test reads it; a failure of the test if there is none.
  static http_answer answer_of(const httplib::Result& r, const std::string& what) {
    http_answer out;
    if (!r) {
      ADD_FAILURE() << what << ": no answer (httplib error "
                    << static_cast<int>(r.error()) << ")";
      return out;
    }
    out.status = r->status;
    out.content_type = r->get_header_value("Content-Type");
    out.retry_after = r->get_header_value("Retry-After");
    out.etag = r->get_header_value("ETag");
    out.body = r->body;
    out.headers = r->headers;
    out.json = nlohmann::json::parse(out.body, nullptr, false);
    if (out.json.is_discarded())
      out.json = nullptr;
    return out;
  }

  deployment& d_;
};

/// A six-digit code that is not `code`: a wrong guess.
inline std::string another_code(const std::string& code) {
  return code == "000000" ? "111111" : "000000";
}

/// The cards of a book, in an order that does not depend on the store's.
inline std::multiset<std::string> card_set(const std::string& book) {
  std::multiset<std::string> out;
  for (auto at = book.find("BEGIN:VCARD"); at != std::string::npos;) {
    auto next = book.find("BEGIN:VCARD", at + 1);
    out.insert(book.substr(at, next == std::string::npos ? next : next - at));
    at = next;
  }
  return out;
}

/// A vCard 3.0 card with a UID.
inline std::string card(const std::string& uid, const std::string& name,
                        const std::string& tel = "+8613911112222") {
  return "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + name + "\r\nN:" + name +
         ";;;;\r\nTEL;TYPE=CELL:" + tel + "\r\nEND:VCARD\r\n";
}

/// A test suite sharing one deployment of `Suite::carriers()`: started once
/// for the suite, since real processes are slow to start.
template <class Suite, class Base = ::testing::Test> struct shared_deployment : Base {
  static void SetUpTestSuite() { d = new deployment(Suite::carriers()); }
  static void TearDownTestSuite() {
    delete d;
    d = nullptr;
  }
  static inline deployment* d = nullptr;
  gateway_client http{*d};
};

} // namespace simsync::testing
