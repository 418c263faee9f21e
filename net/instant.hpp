#pragma once

// Instants as the API writes them: RFC 3339 date-times (history, restore).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace simsync::net {

/// Unix milliseconds as RFC 3339 in UTC with milliseconds:
/// "2026-12-01T09:30:00.250Z".
std::string rfc3339_of(std::uint64_t unix_ms);

/// An RFC 3339 date-time ("2026-12-01T17:30:00+08:00", "2026-12-01T09:30:00.25Z";
/// 't' and 'z' accepted, fractions beyond milliseconds dropped) as Unix
/// milliseconds; nullopt when it is not one or lies before 1970.
std::optional<std::uint64_t> unix_ms_of(std::string_view text);

} // namespace simsync::net
