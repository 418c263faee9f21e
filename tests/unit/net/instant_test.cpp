#include "net/instant.hpp"

#include <gtest/gtest.h>

namespace simsync::net {
namespace {

TEST(instant, writes_utc_with_milliseconds) {
  EXPECT_EQ(rfc3339_of(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(rfc3339_of(1764581400250), "2025-12-01T09:30:00.250Z");
}

TEST(instant, reads_what_it_writes) {
  for (std::uint64_t ms : {0ull, 1764581400250ull, 951782400999ull})
    EXPECT_EQ(unix_ms_of(rfc3339_of(ms)), ms) << ms;
}

TEST(instant, reads_offsets_fractions_and_lower_case) {
  EXPECT_EQ(unix_ms_of("2025-12-01T17:30:00+08:00"), 1764581400000u);
  EXPECT_EQ(unix_ms_of("2025-12-01T04:00:00-05:30"), 1764581400000u);
  EXPECT_EQ(unix_ms_of("2025-12-01t09:30:00.25z"), 1764581400250u);
  EXPECT_EQ(unix_ms_of("2025-12-01T09:30:00.2509999Z"), 1764581400250u);
  EXPECT_EQ(unix_ms_of("2024-02-29T00:00:00Z"), 1709164800000u);
}

TEST(instant, refuses_what_is_not_an_instant) {
  for (const char* bad :
       {"", "yesterday", "2025-12-01", "2025-12-01T09:30:00", "2025-12-01 09:30:00Z",
        "2025-13-01T09:30:00Z", "2025-02-29T00:00:00Z", "2025-12-01T24:00:00Z",
        "2025-12-01T09:30:00.Z", "2025-12-01T09:30:00+8:00", "1969-12-31T23:59:59Z",
        "2025-12-01T09:30:00Zjunk", "1970-01-01T00:00:00+01:00"})
    EXPECT_FALSE(unix_ms_of(bad).has_value()) << bad;
}

} // namespace
} // namespace simsync::net
