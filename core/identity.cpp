#include "core/identity.hpp"

#include "core/digest.hpp"

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <stdexcept>

#include <unictype.h>
#include <uninorm.h>
#include <unistr.h>

namespace simsync::core {

namespace {

const std::uint8_t* bytes_of(std::string_view s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

/// NFC form of valid UTF-8; nullopt if `text` is not valid UTF-8.
std::optional<std::string> nfc(std::string_view text) {
  if (u8_check(bytes_of(text), text.size()) != nullptr)
    return std::nullopt;
  std::size_t length = 0;
  std::unique_ptr<std::uint8_t, decltype(&std::free)> out(
      u8_normalize(UNINORM_NFC, bytes_of(text), text.size(), nullptr, &length),
      &std::free);
  if (!out)
    return std::nullopt;
  return std::string(reinterpret_cast<const char*>(out.get()), length);
}

/// Calls `each(code_point, bytes)` for every code point of valid UTF-8.
template <class F> void for_each_code_point(std::string_view text, F each) {
  while (!text.empty()) {
    ucs4_t c = 0;
    int n = u8_mbtouc(&c, bytes_of(text), text.size());
    each(c, text.substr(0, static_cast<std::size_t>(n)));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string collapse_whitespace(std::string_view text) {
  std::string out;
  bool gap = false;
  for_each_code_point(text, [&](ucs4_t c, std::string_view bytes) {
    if (uc_is_property_white_space(c)) {
      gap = true;
      return;
    }
    if (gap && !out.empty())
      out += ' ';
    gap = false;
    out += bytes;
  });
  return out;
}

std::string strip_whitespace_upper(std::string_view text) {
  std::string out;
  for_each_code_point(text, [&](ucs4_t c, std::string_view bytes) {
    if (uc_is_property_white_space(c))
      return;
    if (c >= 'a' && c <= 'z')
      out += static_cast<char>(c - 'a' + 'A');
    else
      out += bytes;
  });
  return out;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_alnum(char c) {
  return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

int digits(std::string_view s) {
  int v = 0;
  for (char c : s)
    v = v * 10 + (c - '0');
  return v;
}

void append_field(std::string& out, std::string_view field) {
  auto n = static_cast<std::uint32_t>(field.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    out += static_cast<char>((n >> shift) & 0xff);
  out += field;
}

/// Today as YYYYMMDD in UTC.
int today_yyyymmdd() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  return (utc.tm_year + 1900) * 10000 + (utc.tm_mon + 1) * 100 + utc.tm_mday;
}

/// The birth date of a PRC resident ID (digits 7-14, YYYYMMDD) is a real day
/// between 1900-01-01 and today.
check_result check_birth_date(std::string_view yyyymmdd) {
  int year = digits(yyyymmdd.substr(0, 4));
  int month = digits(yyyymmdd.substr(4, 2));
  int day = digits(yyyymmdd.substr(6, 2));
  static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1] ||
      (month == 2 && day == 29 && !leap))
    return {"birth date " + std::string(yyyymmdd) + " is not a calendar date"};
  if (year < 1900 || digits(yyyymmdd) > today_yyyymmdd())
    return {"birth date " + std::string(yyyymmdd) + " is not plausible"};
  return {};
}

/// ISO 7064 MOD 11-2 check character over the first 17 digits.
char mod11_2_check(std::string_view first17) {
  int sum = 0;
  int weight = 1; // 2^(17-i) mod 11, computed from the right
  for (std::size_t i = first17.size(); i-- > 0;) {
    weight = weight * 2 % 11;
    sum += (first17[i] - '0') * weight;
  }
  return "10X98765432"[sum % 11];
}

} // namespace

normalized_user_info normalize_user_info(std::string_view name,
                                         std::string_view id_number) {
  auto nfc_name = nfc(name);
  if (!nfc_name)
    return {std::nullopt, "name is not valid UTF-8"};
  auto nfc_id = nfc(id_number);
  if (!nfc_id)
    return {std::nullopt, "id_number is not valid UTF-8"};
  user_info info{collapse_whitespace(*nfc_name), strip_whitespace_upper(*nfc_id)};
  if (info.name.empty())
    return {std::nullopt, "name is empty"};
  if (info.id_number.empty())
    return {std::nullopt, "id_number is empty"};
  return {std::move(info), {}};
}

std::string idcode(std::string_view key, const user_info& normalized) {
  if (key.empty())
    throw std::invalid_argument("idcode: empty federation key");
  std::string message = "simsync-idcode-v1";
  append_field(message, normalized.name);
  append_field(message, normalized.id_number);
  return hex(hmac_sha256(key, message));
}

check_result validate_id_number(std::string_view id) {
  bool prc = id.size() == 18;
  for (std::size_t i = 0; prc && i < 17; ++i)
    prc = is_digit(id[i]);
  if (prc) {
    char check = id[17];
    if (!is_digit(check) && check != 'X')
      return {"resident ID check character must be 0-9 or X"};
    if (check != mod11_2_check(id.substr(0, 17)))
      return {"resident ID check character is wrong"};
    return check_birth_date(id.substr(6, 8));
  }
  if (id.size() < 6 || id.size() > 20)
    return {"ID number must be 6 to 20 characters"};
  for (char c : id)
    if (!is_alnum(c))
      return {"ID number must be ASCII letters and digits"};
  return {};
}

check_result validate_msisdn(std::string_view msisdn) {
  if (msisdn.empty() || msisdn[0] != '+')
    return {"msisdn must start with '+'"};
  auto number = msisdn.substr(1);
  if (number.size() < 8 || number.size() > 15)
    return {"msisdn must have 8 to 15 digits"};
  for (char c : number)
    if (!is_digit(c))
      return {"msisdn must be digits after '+'"};
  if (number[0] == '0')
    return {"msisdn country code cannot start with 0"};
  return {};
}

check_result validate_iccid(std::string_view iccid) {
  if (iccid.size() < 18 || iccid.size() > 22 || iccid.substr(0, 2) != "89")
    return {"must be 18 to 22 digits starting with 89"};
  for (char c : iccid)
    if (!is_digit(c))
      return {"must be 18 to 22 digits starting with 89"};
  return {};
}

} // namespace simsync::core
