#pragma once

#include "core/keyring.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/tcp_relay.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace simsync::testing {

/// A local multi-carrier deployment for one test or benchmark: every node of
/// every carrier is a real carrierd process with its own redis-server (AOF
/// on), on free loopback ports, with generated configs in a temporary folder.
/// Everything is stopped by pid and the folder removed on destruction.
class deployment {
public:
  struct options {
    int shards = 2; ///< per carrier
    /// Nodes per carrier (default 1); shard s belongs to node s % count.
    std::map<std::string, int> nodes = {};
    /// carrierd's [admin] metrics (off only to measure what collecting costs).
    bool metrics = true;
    /// carrierd's [gateway] max_replication_lag_ms and max_in_flight (its
    /// defaults when unset).
    std::optional<int> max_replication_lag_ms = std::nullopt;
    std::optional<int> max_in_flight = std::nullopt;
    /// carrierd's [federation] ack_timeout_seconds (its default when unset).
    std::optional<int> ack_timeout_seconds = std::nullopt;
    /// carrierd's [registration] settings. The defaults let a test register
    /// as many lines as it likes from loopback; a test of a limit sets it.
    int code_ttl_seconds = 300;
    int max_code_attempts = 5;
    int codes_per_msisdn = 1000;
    int requests_per_address = 1'000'000;
    /// carrierd's [sms]: empty sends codes to the file gateway (a JSON line
    /// each in the node's data folder, read by last_code); otherwise the URL
    /// of an HTTP SMS gateway.
    std::string sms_url = "";
    /// Peer carriers reach each node through a tcp_relay that keeps every
    /// byte exchanged between carriers (federation_bytes()).
    bool relay_federation = false;
    /// carrierd runs as under systemd with Type=notify and WatchdogSec: its
    /// notifications go to this datagram socket (NOTIFY_SOCKET), and it is
    /// asked for WATCHDOG=1 every 200 ms (WATCHDOG_USEC=400000).
    std::string notify_socket = "";
  };

  explicit deployment(std::vector<std::string> carriers)
      : deployment(carriers, options{}) {}
  deployment(std::vector<std::string> carriers, options opts);
  ~deployment();
  deployment(const deployment&) = delete;
  deployment& operator=(const deployment&) = delete;

  /// Starts every node of the carrier that is not running; waits until they listen.
  void start(const std::string& carrier);
  /// Stops every node of the carrier with `signal` (SIGKILL to crash them).
  void stop(const std::string& carrier, int signal);
  void start_node(const std::string& carrier, int node);
  void stop_node(const std::string& carrier, int node, int signal);

  redis_server& redis(const std::string& carrier, int node = 0) {
    return *carriers_.at(carrier).at(static_cast<size_t>(node)).redis;
  }
  int federation_port(const std::string& carrier, int node = 0) const {
    return carriers_.at(carrier).at(static_cast<size_t>(node)).federation_port;
  }
  /// Where the carrier's other nodes reach the node's router (TLS, the
  /// carrier's cluster CA; test_pki has the certificates).
  int cluster_port(const std::string& carrier, int node = 0) const {
    return carriers_.at(carrier).at(static_cast<size_t>(node)).cluster_port;
  }
  /// Where the node's terminal HTTP API listens (on 127.0.0.1).
  int gateway_port(const std::string& carrier, int node = 0) const {
    return carriers_.at(carrier).at(static_cast<size_t>(node)).gateway_port;
  }
  /// Where the node's admin port (/metrics, /admin/actors) listens.
  int admin_port(const std::string& carrier, int node = 0) const {
    return carriers_.at(carrier).at(static_cast<size_t>(node)).admin_port;
  }
  int shards() const { return opts_.shards; }
  /// The node's carrierd process, while it runs (-1 otherwise).
  pid_t pid(const std::string& carrier, int node = 0) const {
    return carriers_.at(carrier).at(static_cast<size_t>(node)).pid;
  }
  /// The carrier's admin credential (the content of its [admin] key_file).
  std::string admin_key(const std::string& carrier) const {
    return admin_keys_.at(carrier);
  }
  /// The key of the idcodes every carrier of the deployment shares (the
  /// content of its federation_key_file): random per deployment.
  const std::string& federation_key() const { return federation_key_; }
  /// The code of the last SMS the carrier's nodes sent to `msisdn` through the
  /// file gateway; empty if none.
  std::string last_code(const std::string& carrier, const std::string& msisdn) const;
  /// Every byte that passed between carriers so far (relay_federation).
  std::string federation_bytes() const;
  /// How many SMS the carrier's nodes sent to `msisdn` through the file gateway.
  int messages_to(const std::string& carrier, const std::string& msisdn) const;
  const std::string& dir() const { return dir_; }
  /// The node's generated config (carrierd --config).
  std::string config_path(const std::string& carrier, int node = 0) const {
    return carriers_.at(carrier).at(static_cast<size_t>(node)).config_path;
  }
  /// The carrierd program the deployment runs.
  static std::string carrierd_program();
  /// What the node's carrierd wrote so far (stdout and stderr: its log).
  std::string log(const std::string& carrier, int node = 0) const;
  /// The carrier's keyring (its seal_key_file): what a test needs to write
  /// into its store as carrierd would, or to find a line by its hash.
  core::keyring keys(const std::string& carrier) const;
  /// The carrier's keyring file (its nodes' seal_key_file).
  std::string seal_key_file(const std::string& carrier) const {
    return dir_ + "/" + carrier + ".seal.key";
  }
  /// The line id the carrier's store knows `msisdn` by (core/line_id.hpp),
  /// under the keyring its seal_key_file holds, whatever its form.
  std::string line_id(const std::string& carrier, const std::string& msisdn) const;
  /// The node's [redis] password_file (mode 0600): its Redis's simsync
  /// password; a test may write another before start_node.
  std::string redis_password_file(const std::string& carrier, int node = 0) const {
    return dir_ + "/" + carrier + "-" +
           carriers_.at(carrier).at(static_cast<size_t>(node)).id + ".redis.password";
  }

private:
  struct node {
    std::string id;
    std::unique_ptr<redis_server> redis;
    int federation_port = 0;
    int gateway_port = 0;
    int admin_port = 0;
    int cluster_port =
        0; ///< where the carrier's other nodes (and tests) reach its shards
    std::unique_ptr<tcp_relay> relay; ///< where peer carriers reach it (relay_federation)
    std::vector<int> shards;
    std::string config_path;
    pid_t pid = -1;
  };

  void write_config(const std::string& carrier, const node& self);
  std::string log_path(const std::string& carrier, const node& n) const;
  std::string gateway_limits() const;
  std::string nodes_toml(const std::string& carrier, const std::string& table) const;

  /// The texts the carrier's nodes sent to `msisdn`, oldest first.
  std::vector<std::string> texts_to(const std::string& carrier,
                                    const std::string& msisdn) const;

  options opts_;
  std::string dir_;
  std::string federation_key_;
  std::map<std::string, std::string> admin_keys_;
  std::map<std::string, std::vector<node>> carriers_;
};

} // namespace simsync::testing
