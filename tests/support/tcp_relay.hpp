#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace simsync::testing {

/// A TCP relay on 127.0.0.1 that forwards every connection to a target port
/// and keeps a copy of every byte it carried, both ways: what passed between
/// two processes, for a test to search. Stopped (sockets closed, threads
/// joined) on destruction.
class tcp_relay {
public:
  explicit tcp_relay(int target_port);
  ~tcp_relay();
  tcp_relay(const tcp_relay&) = delete;
  tcp_relay& operator=(const tcp_relay&) = delete;

  int port() const { return port_; }
  /// Every byte carried so far, each connection's two directions appended
  /// as they came.
  std::string carried() const;

private:
  void accept_loop();
  void pump(int from, int to);

  int target_port_;
  int port_ = 0;
  int listener_ = -1;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mtx_;
  std::string carried_;
  std::vector<int> sockets_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

} // namespace simsync::testing
