#pragma once

// RFC 9457 problem details: every error the gateway answers is one of these,
// sent as application/problem+json.

#include <nlohmann/json.hpp>

#include <string>

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

  /// The problem+json body.
  std::string body() const;
};

/// 400 naming the request field at fault.
problem bad_field(const std::string& field, const std::string& reason);

} // namespace simsync::net
