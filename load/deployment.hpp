#pragma once
// Where the deployment under load is: each carrier's gateway and, when
// known, its nodes' Redis servers and carrierd pids. From `tools/cluster
// status --json` (the default), a file of that JSON (`--deployment FILE`),
// or the command line (`--gateway id=URL,...`, `--redis id=host:port,...`),
// because a deployment in network namespaces is not on loopback.

#include "store/redis_client.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace simsync::load {

/// Who the load tool is to a node's Redis: the ACL user and its password's
/// file (`tools/cluster status --json`: the operator's); an empty file: no
/// AUTH.
struct redis_login {
  std::string user;
  std::string password_file;
};

struct carrier_info {
  std::string id;
  std::string gateway; ///< "http://host:port", no trailing slash
  std::vector<std::string>
      redis; ///< "host:port" of each node's redis-server; may be empty
  std::vector<int> carrierd_pids; ///< local pids, for resident memory; may be empty
  std::vector<int> redis_pids;    ///< local pids, for CPU accounting; may be empty
  /// Registration needs these (the population is provisioned as subscribers
  /// through the admin port, its codes read from the development SMS
  /// gateway's files); empty when unknown.
  std::string admin;                  ///< "http://host:port" of the admin port
  std::string admin_key_file;         ///< the admin bearer token's file
  std::vector<std::string> sms_files; ///< each node's <data_dir>/sms.ndjson
  /// One per entry of `redis` (same order): how to authenticate there.
  std::vector<redis_login> redis_logins;
  /// The carrier's keyring file (its nodes' seal_key_file): the store names
  /// a line by its line id (core/line_id.hpp), so watching a mailbox key
  /// needs it; empty when unknown.
  std::string seal_key_file;
};

/// Where and as whom to reach `c`'s i-th Redis: its address with the user
/// and the password read from the login's file (without its final newline).
/// Throws std::runtime_error on a bad address or an unreadable file; the
/// message names the file, never the password.
store::redis_endpoint redis_endpoint_of(const carrier_info& c, std::size_t i);

struct deployment {
  std::vector<carrier_info> carriers;

  const carrier_info* find(const std::string& id) const;
  /// True when every carrier lists its Redis servers.
  bool has_redis() const;
  /// True when every carrier lists its Redis servers and its keyring file:
  /// what watching mailbox keys takes.
  bool has_mailbox_keys() const;
};

/// The JSON of `tools/cluster status --json`: {"carriers":[{"id","gateway",
/// "admin","admin_key_file","seal_key_file","nodes":[{"redis","redis_user",
/// "redis_password_file","pid","sms_file",...}]}]}.
/// Throws std::runtime_error when malformed.
deployment deployment_from_json(const nlohmann::json& json);
/// Runs `<cluster> status --json [--configs DIR]` (cluster: $SIMSYNC_CLUSTER
/// or the source tree's tools/cluster). Throws when there is no deployment.
deployment deployment_from_cluster(const std::string& configs);
/// "carrier-a=http://127.0.0.1:18080,carrier-b=..." (gateways); the order
/// given is kept. Throws on a malformed list.
deployment deployment_from_gateways(const std::string& list);
/// Adds "carrier-a=127.0.0.1:16379,..." Redis addresses (a carrier may be
/// named more than once, one per node). Throws on an unknown carrier.
void add_redis(deployment& d, const std::string& list);
/// Gives every Redis of `d` this login (--redis-user, --redis-password-file).
void set_redis_login(deployment& d, const redis_login& login);
/// Adds "carrier-a=http://127.0.0.1:19090,..." admin ports (one per carrier).
void add_admin(deployment& d, const std::string& list);
/// Adds "carrier-a=path/carrier-a.admin.key,..." admin key files.
void add_admin_keys(deployment& d, const std::string& list);
/// Adds "carrier-a=path/sms.ndjson,..." SMS files (one per node).
void add_sms_files(deployment& d, const std::string& list);

} // namespace simsync::load
