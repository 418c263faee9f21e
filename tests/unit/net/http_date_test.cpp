#include "net/http_date.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace simsync::net {
namespace {

TEST(http_date, imf_fixdate) {
  using namespace std::chrono;
  // RFC 9110's own example: 784111777 s after the epoch.
  EXPECT_EQ(http_date(system_clock::time_point{seconds{784111777}}),
            "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(http_date(system_clock::time_point{seconds{0}}),
            "Thu, 01 Jan 1970 00:00:00 GMT");
  // Leap day, and sub-second parts dropped.
  EXPECT_EQ(http_date(system_clock::time_point{seconds{1709251199} + milliseconds{999}}),
            "Thu, 29 Feb 2024 23:59:59 GMT");
}

TEST(http_date, now_has_the_form) {
  static const std::regex form(
      R"((Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT)");
  EXPECT_TRUE(std::regex_match(http_date_now(), form)) << http_date_now();
}

} // namespace
} // namespace simsync::net
