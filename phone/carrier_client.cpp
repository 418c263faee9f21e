#include "phone/carrier_client.hpp"

#include "net/http_status.hpp"
#include "phone/error.hpp"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

namespace simsync::phone {

namespace {

std::string network_reason(httplib::Error error) {
  switch (error) {
  case httplib::Error::Connection:
    return "connection refused";
  case httplib::Error::ConnectionTimeout:
    return "connection timed out";
  case httplib::Error::Read:
    return "the connection broke while reading the answer";
  case httplib::Error::Write:
    return "the connection broke while sending the request";
  default:
    return httplib::to_string(error);
  }
}

/// "(403 Forbidden): <detail>" from a problem+json body, else its first line.
std::string refusal(const httplib::Response& r) {
  std::string text =
      "(" + std::to_string(r.status) + " " + net::reason_phrase(r.status) + ")";
  auto problem = nlohmann::json::parse(r.body, nullptr, false);
  std::string detail;
  if (problem.is_object()) {
    detail = problem.value("detail", "");
    if (detail.empty())
      detail = problem.value("title", "");
  } else {
    detail = r.body.substr(0, r.body.find('\n'));
  }
  return detail.empty() ? text : text + ": " + detail;
}

/// A carrier that sheds load (503) asks to be retried after Retry-After; a
/// phone does so a few times, waiting at most this long each time.
constexpr int shed_retries = 3;
constexpr int longest_retry_wait_s = 5;

int retry_after_s(const httplib::Response& r) {
  auto value = r.get_header_value("Retry-After");
  int seconds = value.empty() ? 1 : std::atoi(value.c_str());
  return std::clamp(seconds, 1, longest_retry_wait_s);
}

} // namespace

std::string carrier_refusal::slug() const {
  static const std::string prefix = "urn:simsync:problem:";
  auto type = problem.is_object() ? problem.value("type", "") : "";
  return type.rfind(prefix, 0) == 0 ? type.substr(prefix.size()) : type;
}

carrier_client::carrier_client(std::string gateway, std::string msisdn, std::string token)
    : gateway_(std::move(gateway)), msisdn_(std::move(msisdn)), token_(std::move(token)) {
}

std::string carrier_client::line_path(const std::string& rest) const {
  return "/v1/lines/" + msisdn_ + rest;
}

std::string carrier_client::send(const std::string& action, const std::string& method,
                                 const std::string& path, const std::string& body,
                                 const std::string& content_type) {
  httplib::Client client(gateway_);
  if (!client.is_valid())
    throw usage_error("not a gateway URL: " + gateway_ + " (expected http://host:port)");
  client.set_url_encode(false); // the msisdn's '+' is a literal in a path
  client.set_connection_timeout(std::chrono::seconds{5});
  client.set_read_timeout(std::chrono::seconds{60});
  client.set_write_timeout(std::chrono::seconds{60});
  httplib::Headers headers;
  if (!token_.empty())
    headers.emplace("Authorization", "Bearer " + token_);
  auto attempt = [&] {
    if (method == "GET")
      return client.Get(path, headers);
    if (method == "PUT")
      return client.Put(path, headers, body, content_type.c_str());
    if (content_type.empty())
      return client.Post(path, headers);
    return client.Post(path, headers, body, content_type.c_str());
  };
  auto r = attempt();
  // A carrier that cannot send SMS is not shedding load: asking again at once
  // would not help (and each registration request may count against a limit).
  auto shed = [](const httplib::Result& r) {
    return r && r->status == 503 &&
           r->body.find("urn:simsync:problem:sms-unavailable") == std::string::npos;
  };
  for (int retry = 1; shed(r) && retry <= shed_retries; ++retry) {
    auto wait = retry_after_s(*r);
    std::cerr << "phone: " << action << ": the carrier is busy " << refusal(*r)
              << "; retrying in " << wait << " s (" << retry << "/" << shed_retries
              << ")\n";
    std::this_thread::sleep_for(std::chrono::seconds{wait});
    r = attempt();
  }
  if (!r)
    throw failure("cannot reach carrier at " + gateway_ + ": " +
                  network_reason(r.error()));
  if (r->status == 409) {
    auto problem = nlohmann::json::parse(r->body, nullptr, false);
    if (problem.is_object() &&
        problem.value("type", "") == "urn:simsync:problem:mass-deletion")
      throw mass_deletion_held(problem.value("detail", ""),
                               problem.value("would_remove", std::uint64_t{0}),
                               problem.value("book_size", std::uint64_t{0}));
  }
  if (r->status < 200 || r->status > 299) {
    auto problem = nlohmann::json::parse(r->body, nullptr, false);
    auto retry_after = r->get_header_value("Retry-After");
    throw carrier_refusal(action + " refused " + refusal(*r), r->status,
                          problem.is_object() ? problem : nlohmann::json(),
                          retry_after.empty() ? 0 : std::atoi(retry_after.c_str()));
  }
  return r->body;
}

nlohmann::json carrier_client::send_json(const std::string& action,
                                         const std::string& method,
                                         const std::string& path, const std::string& body,
                                         const std::string& content_type) {
  auto text = send(action, method, path, body, content_type);
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    throw failure(action + ": the carrier at " + gateway_ +
                  " answered something not JSON");
  return json;
}

nlohmann::json carrier_client::request_code(const std::string& msisdn,
                                            const std::string& iccid) {
  nlohmann::json body{{"msisdn", msisdn}, {"iccid", iccid}};
  return send_json("register", "POST", "/v1/register", body.dump(), "application/json");
}

nlohmann::json carrier_client::verify_code(const std::string& msisdn,
                                           const std::string& code) {
  nlohmann::json body{{"msisdn", msisdn}, {"code", code}};
  return send_json("register", "POST", "/v1/register/verify", body.dump(),
                   "application/json");
}

nlohmann::json carrier_client::upload(const std::string& book, bool private_scope,
                                      std::uint64_t confirm_removals) {
  std::string query = private_scope ? "?scope=private" : "?scope=shared";
  if (confirm_removals > 0)
    query += "&confirm_removals=" + std::to_string(confirm_removals);
  return send_json("push", "PUT", line_path("/contacts" + query), book,
                   "text/vcard; charset=utf-8");
}

nlohmann::json carrier_client::history(bool private_scope, int limit,
                                       const std::string& next) {
  std::string query = private_scope ? "?scope=private" : "?scope=shared";
  query += "&limit=" + std::to_string(limit);
  if (!next.empty())
    query += "&next=" + next;
  return send_json("history", "GET", line_path("/history" + query));
}

nlohmann::json carrier_client::restore(const std::string& at, bool private_scope,
                                       bool preview) {
  nlohmann::json body{
      {"at", at}, {"scope", private_scope ? "private" : "shared"}, {"preview", preview}};
  return send_json("restore", "POST", line_path("/restore"), body.dump(),
                   "application/json");
}

nlohmann::json carrier_client::update() {
  return send_json("update request", "POST", line_path("/update"));
}

nlohmann::json carrier_client::pending(std::uint32_t limit, const std::string& next) {
  std::string query;
  if (limit > 0)
    query = "?limit=" + std::to_string(limit);
  if (!next.empty()) // the carrier's next is digits and a dot: no escaping needed
    query += (query.empty() ? "?next=" : "&next=") + next;
  return send_json("pending fetch", "GET", line_path("/pending" + query));
}

void carrier_client::ack(const std::string& cursor, const std::string& decision) {
  nlohmann::json body{{"cursor", cursor}, {"decision", decision}};
  send(decision, "POST", line_path("/pending/ack"), body.dump(), "application/json");
}

std::string carrier_client::contacts(bool private_scope) {
  return send(
      "restore", "GET",
      line_path(private_scope ? "/contacts?scope=private" : "/contacts?scope=shared"));
}

} // namespace simsync::phone
