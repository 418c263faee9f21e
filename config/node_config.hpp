#pragma once

#include "core/keyring.hpp"
#include "logging/log.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::config {

/// A TCP endpoint as written in the configuration: "host:port", or
/// "[v6-address]:port" for an IPv6 literal (host then holds it without brackets).
struct host_port {
  std::string host;
  int port = 0; ///< 1..65535

  /// Back to the configuration's spelling, brackets included for IPv6.
  std::string to_string() const;
};

/// One node of a carrier and the account shards it owns.
struct node_entry {
  std::string id;
  host_port federation; ///< where peer carriers reach the node (TLS, federation CA)
  /// Where the carrier's other nodes reach it (TLS, the carrier's cluster CA);
  /// port 0: none (a peer's node, or a carrier's only node configured without).
  host_port cluster;
  std::vector<int> shards; ///< ascending, non-empty
};

/// A peer carrier: its shard count and nodes, which partition its shards.
struct peer_entry {
  std::string id;
  int shards = 0;
  std::vector<node_entry> nodes;
  /// Its Ed25519 public key (PEM, public_key_file): what its batches are
  /// verified against.
  std::string public_key;
};

/// One TLS identity of a node: the CA whose certificates it accepts, and
/// its own certificate chain and private key (one PEM file, so that a `mv`
/// replaces both at once). Absolute paths: CAF reads the files again for each
/// new connection, which is how a rotated certificate takes effect.
struct tls_identity {
  std::string ca_file;
  std::string certificate_file;
};

/// How carrierd hands registration codes to subscribers' phones ([sms]).
struct sms_settings {
  /// "none": registration is refused (503 sms-unavailable); "file": each
  /// message is appended as a JSON line to <data_dir>/sms.ndjson (local
  /// deployments, tests); "http": each message is POSTed to `url`.
  std::string kind = "none";
  std::string url; ///< http:// or https://; required for (and only read with) "http"
  std::chrono::milliseconds timeout{2000}; ///< per attempt (connect, send, answer)
  /// Total tries of one message, on a connection error, a timeout, 5xx or 429.
  int attempts = 3;
  /// The token_file's content, whitespace trimmed, sent as
  /// `Authorization: Bearer <token>`; empty: no Authorization header.
  std::string token;
};

/// The limits of SIM registration ([registration]).
struct registration_settings {
  std::chrono::seconds code_ttl{300}; ///< how long a code sent by SMS is valid
  int max_code_attempts = 5;          ///< wrong guesses before a code is void
  /// Codes sent to one msisdn per code_window: bounds the texts one number gets.
  int codes_per_msisdn = 3;
  std::chrono::seconds code_window{600};
  /// Requests one client address may make per address_window, per endpoint
  /// (/v1/register and /v1/register/verify counted apart).
  int requests_per_address = 30;
  std::chrono::seconds address_window{60};
};

/// The configuration of one carrierd process, validated: every id is well
/// formed and unique, the shards of `nodes` (and of each peer's nodes)
/// partition 0..shards-1, and the keys were read from their files.
struct node_config {
  std::string carrier; ///< this carrier's id
  std::string node;    ///< this node's id within the carrier
  int shards = 4;      ///< account shards of the whole carrier
  logging::level log_level = logging::level::info;
  logging::format log_format = logging::format::text; ///< text or json lines
  std::string redis_address; ///< "host:port" or "unix:/absolute/path"
  /// The ACL user this node authenticates as ([redis] user).
  std::string redis_user = "simsync";
  /// A secret: [redis] password_file's content without its final newline;
  /// empty when no file is set (missing_credentials then stops carrierd).
  /// Never logged.
  std::string redis_password;
  host_port gateway; ///< terminal HTTP API
  /// An account's shard refuses shared uploads (503) while its node's
  /// replication to a peer that is up is further behind than this; zero
  /// never sheds.
  std::chrono::milliseconds max_replication_lag{2000};
  /// Requests the gateway handles at once; beyond it it sheds load (503).
  /// A node takes about 3,000 one-card edits a second (docs/performance.md),
  /// so the default bounds the wait inside the node to about a third of a
  /// second: a phone is better told to retry than kept waiting longer.
  int max_in_flight = 1000;
  /// A snapshot that would remove more than this many cards and more than
  /// mass_deletion_percent of the book is held until the phone confirms.
  int mass_deletion_min_cards = 10;
  int mass_deletion_percent = 30;
  /// Every store's history keeps the changes of this long, and at most
  /// history_keep_versions entries (one change, or one upload's additions):
  /// how far back a restore reaches.
  std::chrono::milliseconds history_keep{std::chrono::hours{24 * 30}};
  std::uint64_t history_keep_versions = 10'000;
  host_port admin;      ///< metrics and introspection HTTP
  bool metrics = true;  ///< actors time their work; admin serves metrics
  host_port federation; ///< this node's federation endpoint (= self().federation)
  /// Between carriers ([federation] ca_file, certificate_file).
  tls_identity federation_tls;
  /// Between this carrier's nodes ([cluster] ca_file, certificate_file);
  /// empty when this node has no cluster address.
  tls_identity cluster_tls;
  /// This carrier's Ed25519 private key (PEM, [federation] signing_key_file):
  /// signs every batch it sends to a peer carrier.
  std::string signing_key;
  /// A peer's entry stamped further ahead of this node's clock is not
  /// applied: it goes to the peer's dead letters ([federation] max_clock_skew_ms).
  std::chrono::milliseconds max_clock_skew{300'000};
  /// Directory lookups (asks and holds) a peer may make per second once its
  /// burst is spent; more wait ([federation] lookups_per_second).
  std::uint64_t lookups_per_second = 200;
  /// Lookups a peer may make at once ([federation] lookup_burst).
  std::uint64_t lookup_burst = 2000;
  /// How long a window of changes sent to a peer waits for its
  /// acknowledgements before the link gives it up and sends it again
  /// ([federation] ack_timeout_seconds): a peer node that keeps its
  /// connection and never answers.
  std::chrono::seconds peer_ack_timeout{60};
  /// Every node of this carrier; a carrier configured without [[nodes]] gets
  /// one entry, this node, owning every shard.
  std::vector<node_entry> nodes;
  std::vector<peer_entry> peers;
  std::string federation_key; ///< the key bytes (at least 16), as in its file
  /// The keys that seal contact data and user info at rest and hash MSISDNs
  /// and ICCIDs (seal_key_file, config/keyring_file.hpp).
  core::keyring keys;
  std::string keyring_file; ///< absolute path, read again when the keys rotate
  std::string data_dir;     ///< absolute path
  /// The admin bearer token: [admin] key_file's content, whitespace trimmed
  /// (at least 32 characters); empty when no key_file is set, and then the
  /// admin port refuses every write (403).
  std::string admin_key;
  sms_settings sms;
  registration_settings registration;

  /// This node's entry in `nodes`.
  const node_entry& self() const;

  /// The ids of the peer carriers, in configuration order (peer_ids_of).
  std::vector<std::string> peer_ids() const;

  /// The shards this node owns, ascending.
  std::vector<int> owned_shards() const;

  /// The shard whose store keeps the streams a node keeps for its operator
  /// (peer carriers' dead letters; the set-aside entries live in the same
  /// Redis): the first this node owns.
  int operator_stream_shard() const { return owned_shards().front(); }
};

/// The outcome of loading: a configuration, or an error naming the option or
/// key at fault, or (for --help, -h and --version) the text to print.
struct load_result {
  std::optional<node_config> config;
  std::string error; ///< "config error: <key or --option>: <what is wrong>"
  bool help = false;
  std::string help_text;
};

/// Loads carrierd's configuration from the command line: `--config FILE` names
/// a TOML file, and every other option overrides the file's value (--help lists
/// them). Options take `--name value` or `--name=value`.
/// Relative paths in the file are relative to the file's folder; relative
/// paths given as options are relative to the working directory.
load_result load_node_config(int argc, const char* const* argv);

/// What a node cannot start without, as a "config error: <key>: missing
/// (...)" message; empty if nothing is. Loading leaves these optional so that
/// a configuration can be checked without them; a node needs them all: its
/// federation TLS identity and signing key, each peer's public key, a
/// cluster TLS identity when it has a cluster address, and its Redis password.
std::string missing_credentials(const node_config& c);

/// Loads a TOML file with no overrides.
load_result load_node_config_file(const std::string& path);

/// The ids of `peers`, in their order.
std::vector<std::string> peer_ids_of(const std::vector<peer_entry>& peers);

/// The node among `nodes` that owns `shard`. Throws std::out_of_range if none
/// does, which a validated configuration rules out for 0 <= shard < shards.
const node_entry& owner_of(const std::vector<node_entry>& nodes, int shard);

/// The shard of an account: the first 8 hex digits of its idcode read as a
/// 32-bit integer, modulo `shards`. The idcode is already an HMAC, so these
/// bits are uniform; every carrier and tool must use this function so that
/// they agree on where an account lives. Throws std::invalid_argument if
/// shards < 1 or the idcode does not start with 8 hex digits.
int shard_of(std::string_view idcode, int shards);

/// The shard that holds a line's claim, the carrier's one record of which
/// account owns it (whichever node holds that account), and its subscriber
/// record: 32-bit FNV-1a of the line id's bytes (core/line_id.hpp), modulo
/// `shards`. Every node of a carrier computes the same line id, so they all
/// route a line alike. Throws std::invalid_argument if shards < 1.
int shard_of_line(std::string_view line_id, int shards);

} // namespace simsync::config
