#pragma once

// RFC 9457 problem details: every error the gateway answers is one of these,
// sent as application/problem+json.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace simsync::net {

struct problem {
  int status = 500;
  /// Short, stable name of the kind of problem; the `type` member is
  /// "urn:simsync:problem:<slug>" so clients can switch on it.
  std::string slug;
  std::string title;
  std::string detail;
  /// Extension members (RFC 9457 §3.2): "field" for a bad registration
  /// field, "errors" for per-card errors of a book.
  nlohmann::json extra = nlohmann::json::object();
  /// Response headers the problem needs: Retry-After on a limit,
  /// WWW-Authenticate with an error on a refused token.
  std::vector<std::pair<std::string, std::string>> headers = {};

  /// The problem+json body.
  std::string body() const;
  /// `headers`, with those its status always has when it did not set them:
  /// WWW-Authenticate: Bearer on a 401, Retry-After: 1 on a 503.
  std::vector<std::pair<std::string, std::string>> answer_headers() const;
};

/// 400 naming the request field at fault.
problem bad_field(const std::string& field, const std::string& reason);

/// `p` telling the client when to try again: Retry-After and the
/// "retry_after" member, in whole seconds (at least 1) from `ms`.
problem retry_after(problem p, std::uint64_t retry_after_ms);

/// 429 for a limit hit, with retry_after.
problem too_many(const std::string& slug, const std::string& title, std::string detail,
                 std::uint64_t retry_after_ms);

} // namespace simsync::net
