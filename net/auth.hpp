#pragma once

#include "net/exchange.hpp"

#include <functional>
#include <string>

namespace simsync::net {

/// The line a request acts on, and what proves its right to it.
struct line_access {
  std::string idcode; ///< the token's account
  std::string line;   ///< the line id of the path's msisdn (core/line_id.hpp)
  std::string proof;  ///< the SHA-256 (hex) of the token presented
};

/// Reads the bearer token of a /v1/lines/{msisdn}/... request and runs `next`
/// with the line it names and the token's proof. Whether the token opens the
/// line is decided by the store, in the same round trip as the request's work
/// (store::operator_proof); when it does not, the shard answers
/// ec::bad_token and exchange::fail answers with refuse_token. The rule
/// (RFC 6750):
/// - no Authorization header, or not "Bearer <idcode>.<secret>": 401;
/// - a token that opens no line of its account (revoked when the line
///   registered again or was retired, or never issued here): 401
///   invalid_token;
/// - a live token of another line (the path's line is unknown, belongs to
///   another account, or is another line of the same person): 403;
/// - otherwise the token opens its own line, and only that one.
/// Unknown lines answer 403 rather than 404 so that a token cannot be used to
/// probe which numbers are registered.
void authorize(const exchange_ptr& ex, std::function<void(const line_access&)> next);

/// Answers a request whose token the store refused (ec::bad_token): 403 when
/// the token opens another line of its account, 401 otherwise. Hashes are
/// compared in constant time.
void refuse_token(const exchange_ptr& ex);

} // namespace simsync::net
