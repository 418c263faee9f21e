#include "net/one_time_code.hpp"

#include "core/digest.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace simsync::net {

std::string new_code() {
  // Rejection sampling: 2^32 is not a multiple of 10^6, so values at or above
  // the largest multiple are drawn again rather than biasing low codes.
  constexpr std::uint32_t codes = 1'000'000;
  constexpr std::uint32_t limit = UINT32_MAX - UINT32_MAX % codes;
  std::uint32_t value = 0;
  do {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&value), sizeof value) != 1)
      throw std::runtime_error("the random source failed");
  } while (value >= limit);
  auto digits = std::to_string(value % codes);
  return std::string(6 - digits.size(), '0') + digits;
}

bool is_code(std::string_view text) {
  return text.size() == 6 && std::all_of(text.begin(), text.end(),
                                         [](char c) { return c >= '0' && c <= '9'; });
}

std::string code_hash(std::string_view key, std::string_view msisdn,
                      std::string_view code) {
  std::string message = "simsync-code-v1|";
  message.append(msisdn).append("|").append(code);
  return core::hex(core::hmac_sha256(key, message));
}

std::string code_message(std::string_view code, std::chrono::seconds valid_for) {
  auto minutes = std::max<long long>(1, (valid_for.count() + 59) / 60);
  return "simsync code " + std::string(code) + " (valid " + std::to_string(minutes) +
         (minutes == 1 ? " minute" : " minutes") + "). Never share it.";
}

} // namespace simsync::net
