#pragma once

#include "store/redis_client.hpp"

#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

namespace simsync::testing {

/// A real redis-server for one test: its own temporary folder and free
/// loopback port, stopped by its pid (and the folder removed) on destruction.
/// Like every node's Redis it requires a credential: its ACL file (users.acl
/// in its folder, SHA-256 hashes of random passwords) turns the default user
/// off and holds `simsync`, carrierd's user (every command but the dangerous
/// ones, as tools/cluster makes it), and `admin` (every command), the tests'
/// own inspection.
class redis_server {
public:
  struct options {
    bool append_only = false; ///< AOF with appendfsync always, for crash tests
  };

  redis_server() : redis_server(options{}) {}
  explicit redis_server(options opts);
  ~redis_server();
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;

  /// Where it listens, as user simsync with its password: what carrierd and
  /// the store tests use.
  const store::redis_endpoint& endpoint() const { return endpoint_; }
  /// Where it listens, as user admin (every command).
  const store::redis_endpoint& admin_endpoint() const { return admin_endpoint_; }
  /// A new connection as admin (the test's inspection: KEYS, FLUSHALL,
  /// CONFIG...); fails the test if none can be made.
  store::redis_client connect() const;
  /// A new connection as simsync (carrierd's user); fails the test if none.
  store::redis_client connect_as_carrierd() const;

  static constexpr const char* user = "simsync";
  static constexpr const char* admin_user = "admin";
  /// carrierd's ACL line, as tools/cluster writes it (without the password).
  static constexpr const char* user_rules = "~* &* +@all -@dangerous +info";

  /// Stops the server (SIGKILL when `crash`, else SIGTERM) and starts it
  /// again on the same port and folder, as an operator restart would.
  void restart(bool crash = false);

  /// Starts the server (again) on its port and folder; waits until it answers.
  void start();
  /// Stops the server with `signal` (SIGKILL to crash it); start() brings it back.
  void stop(int signal);
  /// Starts the server (again) reading its data back slowly, as a large data
  /// set loads: `per_key` for each key of the append-only file's RDB base
  /// (Redis's key-load-delay; BGREWRITEAOF puts the data there), answering
  /// clients every kilobyte read, which get LOADING meanwhile. Returns once
  /// it answers, loading or not.
  void start_loading_slowly(std::chrono::microseconds per_key);

  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }

private:
  /// Starts redis-server with the settings and `extra` arguments; returns
  /// once it answers PING (or LOADING, when `loading_will_do`).
  void launch(const std::vector<std::string>& extra, bool loading_will_do);

  options opts_;
  std::string dir_;
  store::redis_endpoint endpoint_;
  store::redis_endpoint admin_endpoint_;
  pid_t pid_ = -1;
};

/// A port on 127.0.0.1 that was free a moment ago.
int free_loopback_port();

/// Field `name` of section `section` of the INFO of the Redis `redis` is
/// connected to (e.g. "persistence", "loading"); "" if it has none or INFO
/// cannot be read.
std::string info_field(store::redis_client& redis, const std::string& section,
                       const std::string& name);

/// How many times the Redis `redis` is connected to ran `command` (lower
/// case, e.g. "xtrim"), its scripts' calls included: INFO commandstats. -1
/// if it cannot be read.
long long command_calls(store::redis_client& redis, const std::string& command);

} // namespace simsync::testing
