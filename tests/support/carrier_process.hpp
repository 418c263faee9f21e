#pragma once

#include "tests/support/redis_server.hpp"

#include <map>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace simsync::testing {

/// A local multi-carrier deployment for one test: per carrier, a real
/// redis-server (AOF on) and a real carrierd process, each on free loopback
/// ports, with a generated config in a temporary folder. Everything is
/// stopped by pid and the folder removed on destruction.
class deployment {
public:
  struct options {
    int shards = 2;
  };

  explicit deployment(std::vector<std::string> carriers)
      : deployment(carriers, options{}) {}
  deployment(std::vector<std::string> carriers, options opts);
  ~deployment();
  deployment(const deployment&) = delete;
  deployment& operator=(const deployment&) = delete;

  /// Starts the carrier's carrierd (if not running) and waits until it listens.
  void start(const std::string& carrier);
  /// Stops the carrier's carrierd with `signal` (SIGKILL to crash it).
  void stop(const std::string& carrier, int signal);

  redis_server& redis(const std::string& carrier) { return *carriers_.at(carrier).redis; }
  int federation_port(const std::string& carrier) const {
    return carriers_.at(carrier).federation_port;
  }
  int shards() const { return opts_.shards; }
  const std::string& dir() const { return dir_; }

private:
  struct carrier {
    std::unique_ptr<redis_server> redis;
    int federation_port = 0;
    std::string config_path;
    pid_t pid = -1;
  };

  void write_config(const std::string& id);

  options opts_;
  std::string dir_;
  std::map<std::string, carrier> carriers_;
};

} // namespace simsync::testing
