#pragma once

// The Date header every answer carries (RFC 9110 §6.6.1).

#include <chrono>
#include <string>

namespace simsync::net {

/// `t` in the IMF-fixdate form, e.g. "Sun, 06 Nov 1994 08:49:37 GMT"; the
/// names are English whatever the locale.
std::string http_date(std::chrono::system_clock::time_point t);

/// The current time as http_date().
std::string http_date_now();

} // namespace simsync::net
