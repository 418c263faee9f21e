#include "net/instant.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace simsync::net {

namespace {

/// `n` digits at `at` as a number, or -1.
int digits(std::string_view text, std::size_t at, std::size_t n) {
  if (at + n > text.size())
    return -1;
  int value = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool is_leap(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int year, int month) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : days[month - 1];
}

} // namespace

std::string rfc3339_of(std::uint64_t unix_ms) {
  auto seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char out[80];
  std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                utc.tm_sec, static_cast<int>(unix_ms % 1000));
  return out;
}

std::optional<std::uint64_t> unix_ms_of(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS, then optional .fraction, then Z or +HH:MM / -HH:MM.
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  int year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  int hour = digits(text, 11, 2), minute = digits(text, 14, 2),
      second = digits(text, 17, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 ||
      day > days_in_month(year, month) || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  std::size_t at = 19;
  long long millis = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    std::size_t first = at;
    long long scale = 100;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
      millis += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == first)
      return std::nullopt;
  }
  long long offset_minutes = 0;
  if (at + 1 == text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    at += 1;
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') &&
             text[at + 3] == ':') {
    int oh = digits(text, at + 1, 2), om = digits(text, at + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59)
      return std::nullopt;
    offset_minutes = (text[at] == '+' ? 1 : -1) * (oh * 60 + om);
    at += 6;
  } else {
    return std::nullopt;
  }
  std::tm utc{};
  utc.tm_year = year - 1900;
  utc.tm_mon = month - 1;
  utc.tm_mday = day;
  utc.tm_hour = hour;
  utc.tm_min = minute;
  utc.tm_sec = second;
  long long seconds = static_cast<long long>(timegm(&utc)) - offset_minutes * 60;
  if (seconds < 0)
    return std::nullopt;
  return static_cast<std::uint64_t>(seconds) * 1000 + static_cast<std::uint64_t>(millis);
}

} // namespace simsync::net
