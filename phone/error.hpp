#pragma once

#include <stdexcept>
#include <string>

namespace simsync::phone {

/// Exit codes of tools/phone.
enum exit_code : int { exit_ok = 0, exit_failure = 1, exit_usage = 2 };

/// What ends a command: one line for the user (without the "phone: " prefix)
/// and the exit code it warrants.
struct phone_error : std::runtime_error {
  phone_error(const std::string& message, int code)
      : std::runtime_error(message), code(code) {}
  int code;
};

inline phone_error usage_error(const std::string& message) {
  return {message, exit_usage};
}

inline phone_error failure(const std::string& message) {
  return {message, exit_failure};
}

} // namespace simsync::phone
