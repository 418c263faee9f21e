#pragma once

#include "net/exchange.hpp"

#include <functional>
#include <string>

namespace simsync::net {

/// Checks the bearer token of a /v1/lines/{msisdn}/... request, then runs
/// `next` with the account's idcode and the line id of the path's msisdn
/// (core/line_id.hpp), the name the store knows the line by. The rule
/// (RFC 6750):
/// - no Authorization header, or not "Bearer <idcode>.<secret>": 401;
/// - a token that opens no line of its account (revoked when the line
///   registered again or was retired, or never issued here): 401
///   invalid_token;
/// - a live token of another line (the path's line is unknown, belongs to
///   another account, or is another line of the same person): 403;
/// - otherwise the token opens its own line, and only that one.
/// Hashes are compared in constant time. Unknown lines answer 403 rather
/// than 404 so that a token cannot be used to probe which numbers are
/// registered.
void authorize(
    const exchange_ptr& ex,
    std::function<void(const std::string& idcode, const std::string& line)> next);

} // namespace simsync::net
