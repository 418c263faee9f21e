#include "net/auth.hpp"

#include "core/line_id.hpp"
#include "net/token.hpp"

#include <algorithm>

namespace simsync::net {

namespace {

problem invalid_token() {
  problem p{401, "invalid_token", "The token is not valid",
            "the token was revoked (its line registered again or was retired) or never "
            "issued here; register the line again"};
  p.headers.emplace_back("WWW-Authenticate", "Bearer error=\"invalid_token\"");
  return p;
}

problem forbidden() {
  return problem{403, "forbidden", "The token does not open this line",
                 "a SIM token only opens the line it was issued for"};
}

} // namespace

void authorize(
    const exchange_ptr& ex,
    std::function<void(const std::string& idcode, const std::string& line)> next) {
  auto header = ex->request().header().opt_value_of(restinio::http_field::authorization);
  auto token = header ? bearer_token(std::string_view(header->data(), header->size()))
                      : std::nullopt;
  if (!token) {
    ex->fail(problem{
        401, "unauthorized", "A SIM token is required",
        "send Authorization: Bearer <token> as issued by POST /v1/register/verify"});
    return;
  }
  auto idcode = std::string(token_idcode(*token));
  auto line_id = core::line_id_of(*ex->ctx().keys->current(), ex->param(0));
  ex->ask(
      idcode,
      [ex, idcode, line_id, token = *token,
       next](const caf::optional<store::line_info>& line) {
        if (line && line->idcode == idcode && token_matches(token, line->token_hash))
          return next(idcode, line_id);
        // Not this line's token: a live token of another line of the same
        // account is 403; a revoked or unknown one is 401.
        ex->ask(
            idcode,
            [ex, token](const std::vector<std::string>& hashes) {
              bool live = std::any_of(hashes.begin(), hashes.end(), [&](const auto& h) {
                return token_matches(token, h);
              });
              ex->fail(live ? forbidden() : invalid_token());
            },
            atom::token_hashes_v, idcode);
      },
      atom::find_line_v, line_id);
}

} // namespace simsync::net
