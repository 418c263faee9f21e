#include "net/http_date.hpp"

#include <cstdio>
#include <ctime>

namespace simsync::net {

std::string http_date(std::chrono::system_clock::time_point t) {
  static constexpr const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char out[64]; // 29 needed; room for any int the compiler imagines
  std::snprintf(out, sizeof out, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[utc.tm_wday],
                utc.tm_mday, months[utc.tm_mon], utc.tm_year + 1900, utc.tm_hour,
                utc.tm_min, utc.tm_sec);
  return out;
}

std::string http_date_now() {
  return http_date(std::chrono::system_clock::now());
}

} // namespace simsync::net
