#include "net/auth.hpp"

#include "net/token.hpp"

namespace simsync::net {

void authorize(const exchange_ptr& ex, const std::string& msisdn,
               std::function<void(const std::string& idcode)> next) {
  auto header = ex->request().header().opt_value_of(restinio::http_field::authorization);
  auto token = header ? bearer_token(std::string_view(header->data(), header->size()))
                      : std::nullopt;
  if (!token) {
    ex->fail(
        problem{401, "unauthorized", "A SIM token is required",
                "send Authorization: Bearer <token> as issued by POST /v1/register"});
    return;
  }
  auto idcode = std::string(token_idcode(*token));
  ex->ask(
      idcode,
      [ex, idcode, token = *token, next](const caf::optional<store::line_info>& line) {
        if (!line || line->idcode != idcode || !token_matches(token, line->token_hash)) {
          ex->fail(problem{403, "forbidden", "The token does not open this line",
                           "a SIM token only opens the line it was issued for"});
          return;
        }
        next(idcode);
      },
      atom::find_line_v, msisdn);
}

} // namespace simsync::net
