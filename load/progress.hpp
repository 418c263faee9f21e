#pragma once
// Progress on the terminal: one line at a time, stamped with the seconds
// since the tool started.

#include "load/schedule.hpp"

#include <stdexcept>
#include <string>

namespace simsync::load {

/// Prints "[  12.3s] text" to stderr, so stdout stays for the final table.
void say(const std::string& text);

/// Ctrl-C or SIGTERM: the driver's poll() throws `interrupted_error` once
/// this is set, so every scenario unwinds and the Redis settings the mailbox
/// watch changed are restored.
void install_interrupt_handler();
bool interrupted();
struct interrupted_error : std::runtime_error {
  interrupted_error() : std::runtime_error("interrupted") {}
};

/// True at most once per `period`: for a progress line per second.
class ticker {
public:
  explicit ticker(std::chrono::milliseconds period = std::chrono::seconds{1})
      : period_(period), next_(clock::now() + period) {}
  bool operator()() {
    auto now = clock::now();
    if (now < next_)
      return false;
    next_ = now + period_;
    return true;
  }

private:
  std::chrono::milliseconds period_;
  clock::time_point next_;
};

} // namespace simsync::load
