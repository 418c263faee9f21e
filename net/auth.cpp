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

void authorize(const exchange_ptr& ex, std::function<void(const line_access&)> next) {
  auto header = ex->request().header().opt_value_of(restinio::http_field::authorization);
  auto token = header ? bearer_token(std::string_view(header->data(), header->size()))
                      : std::nullopt;
  if (!token) {
    ex->fail(problem{
        401, "unauthorized", "A SIM token is required",
        "send Authorization: Bearer <token> as issued by POST /v1/register/verify"});
    return;
  }
  line_access access{std::string(token_idcode(*token)),
                     core::line_id_of(*ex->ctx().keys->current(), ex->param(0)),
                     sha256_hex(*token)};
  ex->presented_token(std::move(*token));
  next(access);
}

void refuse_token(const exchange_ptr& ex) {
  const auto& token = ex->presented_token();
  ex->ask(
      std::string(token_idcode(token)),
      [ex](const std::vector<std::string>& hashes) {
        const auto& token = ex->presented_token();
        bool live = std::any_of(hashes.begin(), hashes.end(),
                                [&](const auto& h) { return token_matches(token, h); });
        ex->fail(live ? forbidden() : invalid_token());
      },
      atom::token_hashes_v, std::string(token_idcode(token)));
}

} // namespace simsync::net
