#pragma once

#include "net/exchange.hpp"

#include <functional>
#include <string>

namespace simsync::net {

/// Retires a line (by its line id) at the account `owner`: the line and its
/// data go (its token stops working, and the account goes with its last
/// line), then the line's claim, so the number may be registered afresh. A line that is
/// already gone is no error. Then `done(line_removed, account_removed)`.
/// Used when the phone deletes its line (`proof`: its token's hash) and when
/// the carrier's registry ends or reassigns the subscription
/// (store::operator_proof).
void retire_line(const exchange_ptr& ex, const std::string& line,
                 const std::string& owner, const std::string& proof,
                 std::function<void(bool line_removed, bool account_removed)> done);

} // namespace simsync::net
