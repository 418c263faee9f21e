#include "core/error.hpp"

#include <caf/deep_to_string.hpp>

namespace simsync {

const char* to_string(ec code) {
  switch (code) {
  case ec::none:
    return "none";
  case ec::store_unavailable:
    return "store_unavailable";
  case ec::store_corrupt:
    return "store_corrupt";
  case ec::unknown_line:
    return "unknown_line";
  case ec::bad_token:
    return "bad_token";
  case ec::line_taken:
    return "line_taken";
  case ec::stale_cursor:
    return "stale_cursor";
  case ec::invalid_request:
    return "invalid_request";
  case ec::replication_behind:
    return "replication_behind";
  case ec::beyond_history:
    return "beyond_history";
  case ec::not_eligible:
    return "not_eligible";
  case ec::too_many_codes:
    return "too_many_codes";
  case ec::no_code:
    return "no_code";
  case ec::code_expired:
    return "code_expired";
  case ec::wrong_code:
    return "wrong_code";
  case ec::too_many_attempts:
    return "too_many_attempts";
  }
  return "unknown_error";
}

std::string describe(const caf::error& err) {
  if (!err)
    return "no error";
  if (err.category() != caf::atom("simsync"))
    return caf::to_string(err);
  std::string out = to_string(static_cast<ec>(err.code()));
  if (!err.context().empty()) {
    out += ": ";
    // The context is the message given to make_error: show its strings plainly.
    const auto& ctx = err.context();
    for (size_t i = 0; i < ctx.size(); ++i) {
      if (i > 0)
        out += ' ';
      out += ctx.template match_element<std::string>(i)
                 ? ctx.template get_as<std::string>(i)
                 : caf::deep_to_string(ctx);
    }
  }
  return out;
}

} // namespace simsync
