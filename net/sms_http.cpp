// The "http" SMS gateway: one JSON POST per message to the carrier's SMS
// provider, tried again on the failures that may pass.

#include "net/sms_gateway.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace simsync::net {

namespace {

/// The first pause between attempts; each later one doubles, up to the cap.
constexpr std::chrono::milliseconds first_pause{100};
constexpr std::chrono::milliseconds max_pause{1000};

/// "scheme://host[:port]" (what httplib::Client takes) and the path with
/// its query, "/" when the URL has none.
struct split_url {
  std::string origin;
  std::string target;
};

split_url split(const std::string& url) {
  std::size_t after_scheme = 0;
  if (url.rfind("http://", 0) == 0)
    after_scheme = 7;
  else if (url.rfind("https://", 0) == 0)
    after_scheme = 8;
  else
    throw std::invalid_argument("sms: the url must start with http:// or https://");
  auto path_at = url.find_first_of("/?", after_scheme);
  split_url parts;
  parts.origin = url.substr(0, path_at);
  if (parts.origin.size() == after_scheme)
    throw std::invalid_argument("sms: the url has no host");
  if (path_at == std::string::npos)
    parts.target = "/";
  else if (url[path_at] == '?')
    parts.target = "/" + url.substr(path_at);
  else
    parts.target = url.substr(path_at);
  return parts;
}

/// Whether a failure before any answer may pass on another attempt.
bool transient(httplib::Error error) {
  switch (error) {
  case httplib::Error::Unknown:
  case httplib::Error::Connection:
  case httplib::Error::Read:
  case httplib::Error::Write:
  case httplib::Error::SSLConnection:
  case httplib::Error::ConnectionTimeout:
    return true;
  default:
    return false;
  }
}

std::string describe(httplib::Error error) {
  switch (error) {
  case httplib::Error::Connection:
    return "cannot connect";
  case httplib::Error::ConnectionTimeout:
    return "connecting timed out";
  case httplib::Error::Read:
    return "no answer (timed out or connection closed)";
  case httplib::Error::Write:
    return "sending the request failed";
  case httplib::Error::SSLConnection:
    return "TLS handshake failed";
  case httplib::Error::SSLServerVerification:
    return "the server's certificate is not trusted";
  case httplib::Error::SSLLoadingCerts:
    return "cannot load the trusted CA certificates";
  default:
    return "request failed (" + httplib::to_string(error) + ")";
  }
}

bool transient(int status) {
  return status >= 500 || status == 429;
}

class http_sms_gateway final : public sms_gateway {
public:
  explicit http_sms_gateway(const config::sms_settings& s)
      : url_(split(s.url)), timeout_(s.timeout), attempts_(std::max(1, s.attempts)),
        token_(s.token) {}

  std::string send(const std::string& msisdn, const std::string& text) override {
    nlohmann::ordered_json message;
    message["to"] = msisdn;
    message["text"] = text;
    auto body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    httplib::Headers headers;
    if (!token_.empty())
      headers.emplace("Authorization", "Bearer " + token_);
    std::string last;
    auto pause = first_pause;
    for (int attempt = 1; attempt <= attempts_; ++attempt) {
      if (attempt > 1) {
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, max_pause);
      }
      // A client per attempt: no state is shared between threads or kept
      // from a connection that failed.
      httplib::Client client{url_.origin};
      client.set_connection_timeout(timeout_);
      client.set_read_timeout(timeout_);
      client.set_write_timeout(timeout_);
      auto result = client.Post(url_.target, headers, body, "application/json");
      if (!result) {
        last = describe(result.error());
        if (!transient(result.error()))
          return failure(last + " (not retried)");
        continue;
      }
      auto status = result->status;
      if (status >= 200 && status < 300)
        return {};
      // The answer's body is not quoted: a gateway may echo the message.
      last = "answered " + std::to_string(status);
      if (!transient(status))
        return failure(last + " (not retried)");
    }
    return failure("gave up after " + std::to_string(attempts_) +
                   (attempts_ == 1 ? " attempt" : " attempts") + "; last: " + last);
  }

private:
  /// The reason names the gateway by scheme, host and port only: a path or
  /// query may hold a credential.
  std::string failure(const std::string& what) const {
    return "sms http " + url_.origin + ": " + what;
  }

  split_url url_;
  std::chrono::milliseconds timeout_;
  int attempts_;
  std::string token_;
};

} // namespace

std::shared_ptr<sms_gateway> make_http_sms_gateway(const config::sms_settings& s) {
  return std::make_shared<http_sms_gateway>(s);
}

} // namespace simsync::net
