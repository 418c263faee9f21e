#pragma once

#include "net/exchange.hpp"

#include <functional>
#include <string>

namespace simsync::net {

/// Checks the bearer token of a /v1/lines/{msisdn}/... request, then runs
/// `next` with the account's idcode. The rule:
/// - no Authorization header, or not "Bearer <idcode>.<secret>": 401;
/// - a well-formed token that does not open the path's line: 403. That is:
///   the line is unknown to the shard of the token's idcode, or it belongs
///   to another account, or the SHA-256 of the token is not the line's stored
///   hash (compared in constant time). A token of another line, even one of
///   the same person, and a token of another carrier all land here;
/// - otherwise the token opens its own line, and only that one.
/// Unknown lines answer 403 rather than 404 so that a token cannot be used
/// to probe which numbers are registered.
void authorize(const exchange_ptr& ex, const std::string& msisdn,
               std::function<void(const std::string& idcode)> next);

} // namespace simsync::net
