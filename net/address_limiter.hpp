#pragma once

// Per-client-address limits on the registration endpoints: at most N
// requests per address and fixed window, counted in this process. A phone
// behind a carrier's NAT shares its address with others, so the limit is
// configuration ([registration] requests_per_address).

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace simsync::net {

class address_limiter {
public:
  address_limiter(int per_window, std::chrono::seconds window)
      : per_window_(per_window), window_(window) {}

  /// Counts a request from `address` at `now`: 0 when admitted, otherwise
  /// how many ms until the address's window ends.
  std::uint64_t admit(const std::string& address,
                      std::chrono::steady_clock::time_point now);

private:
  struct window_count {
    std::chrono::steady_clock::time_point started;
    int count = 0;
  };

  int per_window_;
  std::chrono::seconds window_;
  std::mutex mtx_;
  std::unordered_map<std::string, window_count> counts_;
  std::chrono::steady_clock::time_point last_sweep_{};
};

} // namespace simsync::net
