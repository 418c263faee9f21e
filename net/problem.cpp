#include "net/problem.hpp"

#include <algorithm>

namespace simsync::net {

std::string problem::body() const {
  nlohmann::json out = extra;
  out["type"] = "urn:simsync:problem:" + slug;
  out["title"] = title;
  out["status"] = status;
  out["detail"] = detail;
  // Replace, do not throw, on bytes that are not UTF-8 (a detail may quote input).
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

problem bad_field(const std::string& field, const std::string& reason) {
  problem p{400, "invalid-field", "A request field is invalid", field + ": " + reason};
  p.extra["field"] = field;
  return p;
}

std::vector<std::pair<std::string, std::string>> problem::answer_headers() const {
  auto out = headers;
  auto has = [&](const char* name) {
    return std::any_of(out.begin(), out.end(),
                       [&](const auto& h) { return h.first == name; });
  };
  if (status == 401 && !has("WWW-Authenticate"))
    out.emplace_back("WWW-Authenticate", "Bearer");
  if (status == 503 && !has("Retry-After"))
    out.emplace_back("Retry-After", "1");
  return out;
}

problem retry_after(problem p, std::uint64_t retry_after_ms) {
  auto seconds = std::max<std::uint64_t>(1, (retry_after_ms + 999) / 1000);
  p.extra["retry_after"] = seconds;
  p.headers.emplace_back("Retry-After", std::to_string(seconds));
  return p;
}

problem too_many(const std::string& slug, const std::string& title, std::string detail,
                 std::uint64_t retry_after_ms) {
  return retry_after(problem{429, slug, title, std::move(detail)}, retry_after_ms);
}

} // namespace simsync::net
