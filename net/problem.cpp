#include "net/problem.hpp"

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

} // namespace simsync::net
