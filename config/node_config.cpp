#include "config/node_config.hpp"

#include "config/keyring_file.hpp"
#include "simsync_version.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace simsync::config {

namespace {

namespace fs = std::filesystem;

constexpr int max_shards = 1024;
constexpr int default_shards = 4;
constexpr std::size_t min_federation_key_size = 16;
constexpr std::size_t min_admin_key_size = 32;

/// Thrown with the whole message; load_node_config turns it into a load_result.
struct config_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// -- options -----------------------------------------------------------------

/// A command-line option and the TOML key it overrides. The help text is
/// generated from this table, so it cannot drift from what is parsed.
struct option_spec {
  std::string_view flag;
  std::string_view key; ///< dotted TOML key; empty for --config and --help
  std::string_view arg;
  std::string_view default_value; ///< "required" or "default: ..."
  std::string_view meaning;       ///< may hold '\n' for help's line breaks
};

constexpr option_spec option_specs[] = {
    {"--config", "", "FILE", "",
     "TOML file to read; relative paths in it are relative to its folder"},
    {"--carrier", "carrier", "ID", "required",
     "this carrier's id: 1 to 32 of a-z, 0-9 and '-'"},
    {"--node", "node", "ID", "required",
     "this node's id within the carrier (same rule as carrier)"},
    {"--shards", "shards", "N", "default: 4",
     "account shards of the whole carrier (1..1024)"},
    {"--log-level", "log_level", "LEVEL", "default: info",
     "trace, debug, info, warn or error"},
    {"--log-format", "log_format", "FORMAT", "default: text",
     "text (key=value) or json (one object per line), both on stderr"},
    {"--redis", "redis.address", "ADDR", "required",
     "this node's Redis: host:port or unix:/absolute/path"},
    {"--redis-user", "redis.user", "USER", "default: simsync",
     "the Redis ACL user this node authenticates as"},
    {"--redis-password-file", "redis.password_file", "FILE", "required",
     "the Redis user's password (a secret): the file's content without its\n"
     "final newline; tools/cluster up makes it (mode 0600, never committed)"},
    {"--gateway", "gateway.listen", "HOST:PORT", "required", "terminal HTTP API"},
    {"--max-in-flight", "gateway.max_in_flight", "N", "default: 1000",
     "requests the gateway handles at once; beyond it: 503, retry after a second"},
    {"--max-replication-lag-ms", "gateway.max_replication_lag_ms", "MS", "default: 2000",
     "shared uploads are answered 503 while replication to a peer carrier that\n"
     "is up is further behind than this, with Retry-After the lag beyond it\n"
     "(1-10 s); 0: never"},
    {"--max-clock-skew-ms", "federation.max_clock_skew_ms", "MS", "default: 300000",
     "an entry from a peer carrier stamped further ahead of this node's clock\n"
     "is not applied but kept as a dead letter (1000..86400000)"},
    {"--lookups-per-second", "federation.lookups_per_second", "N", "default: 200",
     "directory lookups (does a person hold an account here?) a peer carrier\n"
     "may make per second once its burst is spent; more wait (10..1000000)"},
    {"--lookup-burst", "federation.lookup_burst", "N", "default: 2000",
     "lookups a peer carrier may make at once (256..10000000)"},
    {"--ack-timeout-seconds", "federation.ack_timeout_seconds", "S", "default: 60",
     "a window of changes sent to a peer carrier that is not acknowledged\n"
     "within S seconds is sent again (1..3600)"},
    {"--mass-deletion-min-cards", "gateway.mass_deletion_min_cards", "N", "default: 10",
     "a snapshot that would remove more than N cards and more than\n"
     "--mass-deletion-percent of the book is held (409) until the phone confirms"},
    {"--mass-deletion-percent", "gateway.mass_deletion_percent", "P", "default: 30",
     "see --mass-deletion-min-cards (0..100)"},
    {"--history-keep-days", "history.keep_days", "DAYS", "default: 30",
     "how long every replaced or removed version is kept for history and restore"},
    {"--history-keep-versions", "history.keep_versions", "N", "default: 10000",
     "at most this many history entries kept per store (an account's shared\n"
     "book, a line's private backup; an entry is one change, or the additions\n"
     "of one upload); a restore reaches no further back"},
    {"--admin", "admin.listen", "HOST:PORT", "required",
     "admin HTTP (metrics, introspection, the subscriber registry)"},
    {"--metrics", "admin.metrics", "on|off", "default: on",
     "actors time their messages and the admin port serves /metrics and\n"
     "/admin/actors; off only to measure what collecting costs"},
    {"--admin-key-file", "admin.key_file", "FILE",
     "default: none (admin writes refused: 403)",
     "bearer token of the admin port's writes: the file's content,\n"
     "whitespace trimmed, at least 32 visible ASCII characters"},
    {"--federation", "federation.listen", "HOST:PORT", "required without [[nodes]]",
     "where this node's CAF middleman listens; with [[nodes]] in the file,\n"
     "replaces this node's entry's federation"},
    {"--federation-ca-file", "federation.ca_file", "FILE", "required",
     "CA certificate(s) of the federation: peer carriers' certificates must chain to it"},
    {"--federation-certificate-file", "federation.certificate_file", "FILE", "required",
     "this carrier's TLS certificate chain and private key, one PEM file"},
    {"--signing-key-file", "federation.signing_key_file", "FILE", "required",
     "this carrier's Ed25519 private key (PEM): signs what it sends to peers"},
    {"--cluster-ca-file", "cluster.ca_file", "FILE", "required with a cluster address",
     "the carrier's own CA: its other nodes' certificates must chain to it"},
    {"--cluster-certificate-file", "cluster.certificate_file", "FILE",
     "required with a cluster address",
     "this node's TLS certificate chain and private key for its carrier's nodes"},
    {"--federation-key-file", "federation_key_file", "FILE", "required",
     "key shared by every carrier (idcode HMAC): the file's exact bytes,\n"
     "at least 16 (a trailing newline is part of the key)"},
    {"--seal-key-file", "seal_key_file", "FILE", "required",
     "this carrier's keyring for data at rest (TOML: writer, lookup, [keys]),\n"
     "or one key: 32 raw bytes or 64 hex digits"},
    {"--data-dir", "data_dir", "DIR",
     "default: data/<carrier>/<node> in the file's folder",
     "logs and pid files (tools/cluster), sms.ndjson (--sms file)"},
    {"--sms", "sms.kind", "KIND", "default: none",
     "how registration codes reach phones: none (registration answers 503),\n"
     "file (a JSON line each in <data-dir>/sms.ndjson) or http (POST to --sms-url)"},
    {"--sms-url", "sms.url", "URL", "required with --sms http",
     "the SMS gateway, http://... or https://...; it is POSTed {\"to\":..,\"text\":..}"},
    {"--sms-timeout-ms", "sms.timeout_ms", "MS", "default: 2000",
     "time allowed to each attempt at the SMS gateway"},
    {"--sms-attempts", "sms.attempts", "N", "default: 3",
     "total tries of a message, on a connection error, a timeout, 5xx or 429"},
    {"--sms-token-file", "sms.token_file", "FILE", "default: none",
     "bearer token for the SMS gateway (http): the file's content, whitespace\n"
     "trimmed; without it no Authorization header is sent"},
    {"--code-ttl-seconds", "registration.code_ttl_seconds", "S", "default: 300",
     "how long a registration code is valid"},
    {"--max-code-attempts", "registration.max_code_attempts", "N", "default: 5",
     "wrong guesses of a registration code before it is void"},
    {"--codes-per-msisdn", "registration.codes_per_msisdn", "N", "default: 3",
     "registration codes sent to one number per --code-window-seconds"},
    {"--code-window-seconds", "registration.code_window_seconds", "S", "default: 600",
     "see --codes-per-msisdn"},
    {"--requests-per-address", "registration.requests_per_address", "N", "default: 30",
     "registration requests one client address may make per\n"
     "--address-window-seconds, per endpoint; beyond: 429"},
    {"--address-window-seconds", "registration.address_window_seconds", "S",
     "default: 60", "see --requests-per-address"},
    {"--help", "", "", "", "print this help and exit (also -h)"},
    {"--version", "", "", "", "print the version and exit"},
};

const option_spec* find_option(std::string_view flag) {
  for (const auto& spec : option_specs)
    if (spec.flag == flag)
      return &spec;
  return nullptr;
}

std::string help_text(std::string_view program) {
  std::ostringstream out;
  out << "usage: " << program << " [--config FILE] [options]\n\n"
      << "Reads the node's configuration from a TOML file; each option overrides\n"
      << "the file key shown with it. Options take `--name value` or `--name=value`.\n"
      << "Relative paths given as options are relative to the working directory.\n"
      << "Peers and the nodes of a multi-node carrier ([[nodes]], [[peers]]) are\n"
      << "set in the file only; see config/examples/.\n\n";
  for (const auto& spec : option_specs) {
    out << "  " << spec.flag;
    if (!spec.arg.empty())
      out << ' ' << spec.arg;
    out << "\n      ";
    for (char c : spec.meaning)
      out << (c == '\n' ? std::string_view{"\n      "} : std::string_view{&c, 1});
    if (!spec.key.empty())
      out << "\n      file key: " << spec.key << "; " << spec.default_value;
    out << '\n';
  }
  return out.str();
}

// -- value checks ------------------------------------------------------------

std::string in_quotes(std::string_view text) {
  return "\"" + std::string{text} + "\"";
}

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_valid_id(std::string_view id) {
  return !id.empty() && id.size() <= 32 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

/// `text` without leading and trailing whitespace.
std::string trimmed(std::string_view text) {
  constexpr std::string_view space = " \t\r\n\v\f";
  auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos)
    return {};
  return std::string{text.substr(first, text.find_last_not_of(space) - first + 1)};
}

/// One word of visible ASCII: what an Authorization header can carry as is.
bool is_bearer_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](char c) { return c > ' ' && c < '\x7f'; });
}

/// Parses a whole string of decimal digits; nothing else (no sign, no spaces).
std::optional<long long> parse_decimal(std::string_view text) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.front() == '-' || ec != std::errc{} ||
      end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::optional<host_port> parse_host_port(std::string_view text) {
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() ||
        text[close + 1] != ':')
      return std::nullopt;
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return std::nullopt;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    // An unbracketed colon in the host is an IPv6 literal without brackets,
    // where the port cannot be told apart from the address.
    if (host.find(':') != std::string_view::npos)
      return std::nullopt;
  }
  bool host_ok = !host.empty() && std::none_of(host.begin(), host.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '/' || c == '[' || c == ']';
  });
  auto number = parse_decimal(port);
  if (!host_ok || !number || *number < 1 || *number > 65535)
    return std::nullopt;
  return host_port{std::string{host}, static_cast<int>(*number)};
}

/// Why `url` is not an http:// or https:// URL with a host (and optional
/// port, path and query) that cpp-httplib can call; empty when it is one.
std::string url_problem(std::string_view url) {
  std::string_view rest;
  std::string default_port;
  if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
    default_port = "80";
  } else if (url.substr(0, 8) == "https://") {
    rest = url.substr(8);
    default_port = "443";
  } else {
    return "expected an http:// or https:// URL, got " + in_quotes(url);
  }
  if (std::any_of(url.begin(), url.end(), [](char c) {
        return static_cast<unsigned char>(c) <= ' ' || c == '\x7f' || c == '#';
      }))
    return "expected a URL without spaces, control characters or #fragment";
  auto authority = rest.substr(0, rest.find_first_of("/?"));
  if (authority.find('@') != std::string_view::npos)
    return "credentials in the URL are not supported (use sms.token_file)";
  // A port is optional; with the scheme's default appended the authority
  // must then be a valid host:port.
  if (!parse_host_port(authority) &&
      !parse_host_port(std::string{authority} + ":" + default_port))
    return "expected a host and optional port 1..65535 after the scheme, got " +
           in_quotes(url);
  return {};
}

std::string type_name(const toml::node& node) {
  std::ostringstream out;
  out << node.type();
  return out.str();
}

std::string read_whole_file(const fs::path& path, const std::string& name) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw config_error(
        name + ": " + in_quotes(path.string()) +
        (fs::exists(path, ec) ? " is not a regular file" : " does not exist"));
  std::ifstream in{path, std::ios::binary};
  std::string bytes{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  if (!in.good() && !in.eof())
    throw config_error(name + ": cannot read " + in_quotes(path.string()) + ": " +
                       std::strerror(errno));
  return bytes;
}

// -- reader ------------------------------------------------------------------

/// Reads and validates a parsed TOML document whose top-level keys may have
/// been overridden from the command line. Errors name the option when the
/// value came from one, the TOML key otherwise.
class reader {
public:
  reader(const toml::table& root, fs::path file_dir,
         std::map<std::string, std::string, std::less<>> flags)
      : root_(root), file_dir_(std::move(file_dir)), flags_(std::move(flags)) {}

  node_config read() {
    check_keys(root_, "",
               {"carrier", "node", "shards", "log_level", "log_format",
                "federation_key_file", "seal_key_file", "data_dir", "redis", "gateway",
                "admin", "federation", "nodes", "peers", "history", "sms", "registration",
                "cluster"});
    node_config c;
    c.carrier = required_id(root_, "carrier");
    c.node = required_id(root_, "node");
    c.shards = shard_count(root_, "shards");
    auto level = optional_string(root_, "log_level").value_or("info");
    if (auto known = logging::level_named(level))
      c.log_level = *known;
    else
      fail("log_level",
           "expected trace, debug, info, warn or error, got " + in_quotes(level));
    auto format = optional_string(root_, "log_format").value_or("text");
    if (auto known = logging::format_named(format))
      c.log_format = *known;
    else
      fail("log_format", "expected text or json, got " + in_quotes(format));
    const auto* redis = setting_table("redis", {"address", "user", "password_file"});
    c.redis_address = required_string(redis, "redis.address");
    if (!valid_redis_address(c.redis_address))
      fail("redis.address",
           "expected host:port or unix:/path, got " + in_quotes(c.redis_address));
    c.redis_user = optional_string(redis, "redis.user").value_or("simsync");
    if (c.redis_user.empty() || !is_bearer_token(c.redis_user))
      fail("redis.user", "expected one word of visible ASCII characters, got " +
                             in_quotes(c.redis_user));
    c.redis_password = read_redis_password(redis);
    const auto* gateway =
        setting_table("gateway", {"listen", "max_in_flight", "max_replication_lag_ms",
                                  "mass_deletion_min_cards", "mass_deletion_percent"});
    c.gateway = required_host_port(gateway, "gateway.listen");
    c.max_replication_lag = std::chrono::milliseconds{
        non_negative_integer(gateway, "gateway.max_replication_lag_ms").value_or(2000)};
    auto in_flight =
        non_negative_integer(gateway, "gateway.max_in_flight").value_or(1000);
    if (in_flight < 1 || in_flight > 1'000'000)
      fail("gateway.max_in_flight",
           "expected 1..1000000, got " + std::to_string(in_flight));
    c.max_in_flight = static_cast<int>(in_flight);
    c.mass_deletion_min_cards = static_cast<int>(
        non_negative_integer(gateway, "gateway.mass_deletion_min_cards").value_or(10));
    auto percent =
        non_negative_integer(gateway, "gateway.mass_deletion_percent").value_or(30);
    if (percent > 100)
      fail("gateway.mass_deletion_percent",
           "expected 0..100, got " + std::to_string(percent));
    c.mass_deletion_percent = static_cast<int>(percent);
    const auto* history = setting_table("history", {"keep_days", "keep_versions"});
    auto keep_days = non_negative_integer(history, "history.keep_days").value_or(30);
    auto keep_versions =
        non_negative_integer(history, "history.keep_versions").value_or(10'000);
    if (keep_days < 1 || keep_days > 3650)
      fail("history.keep_days", "expected 1..3650, got " + std::to_string(keep_days));
    if (keep_versions < 1)
      fail("history.keep_versions", "expected at least 1, got 0");
    c.history_keep = std::chrono::hours{24 * keep_days};
    c.history_keep_versions = static_cast<std::uint64_t>(keep_versions);
    const auto* federation = federation_table();
    c.max_clock_skew = std::chrono::milliseconds{integer_in(
        federation, "federation.max_clock_skew_ms", 300'000, 1'000, 86'400'000)};
    // At least 10 a second and a burst of a window (256 entries): a window
    // of lookups then never waits longer than the pacer's longest delay.
    c.lookups_per_second = static_cast<std::uint64_t>(
        integer_in(federation, "federation.lookups_per_second", 200, 10, 1'000'000));
    c.lookup_burst = static_cast<std::uint64_t>(
        integer_in(federation, "federation.lookup_burst", 2'000, 256, 10'000'000));
    c.peer_ack_timeout = std::chrono::seconds{
        integer_in(federation, "federation.ack_timeout_seconds", 60, 1, 3'600)};
    c.federation_tls = read_tls_identity(federation, "federation");
    c.signing_key = optional_pem_file(federation, "federation.signing_key_file");
    const auto* admin = setting_table("admin", {"listen", "metrics", "key_file"});
    c.admin = required_host_port(admin, "admin.listen");
    c.metrics = optional_bool(admin, "admin.metrics").value_or(true);
    c.admin_key = read_admin_key(admin);
    c.sms = read_sms();
    c.registration = read_registration();
    read_own_nodes(c);
    c.federation = c.self().federation;
    c.cluster_tls = read_tls_identity(
        setting_table("cluster", {"ca_file", "certificate_file"}), "cluster");
    c.peers = read_peers(c.carrier);
    c.federation_key = read_key_file("federation_key_file");
    if (c.federation_key.size() < min_federation_key_size)
      fail("federation_key_file",
           "the key must be at least " + std::to_string(min_federation_key_size) +
               " bytes, the file holds " + std::to_string(c.federation_key.size()));
    c.keyring_file =
        path_value("seal_key_file", required_string(&root_, "seal_key_file")).string();
    c.keys = read_keyring();
    auto data_dir = optional_string(root_, "data_dir");
    c.data_dir = data_dir ? path_value("data_dir", *data_dir).string()
                          : (file_dir_ / "data" / c.carrier / c.node).string();
    return c;
  }

private:
  // -- errors --

  /// The name a user knows the value by: the option that set it, or its key.
  std::string display_name(std::string_view key) const {
    auto i = flags_.find(key);
    return i != flags_.end() ? i->second : std::string{key};
  }

  [[noreturn]] void fail(std::string_view key, const std::string& what) const {
    throw config_error(display_name(key) + ": " + what);
  }

  [[noreturn]] void missing(std::string_view key) const {
    std::string hint;
    for (const auto& spec : option_specs)
      if (spec.key == key)
        hint = " (set it in the file or with " + std::string{spec.flag} + ")";
    fail(key, "missing" + hint);
  }

  /// Rejects keys the schema does not know, so that a misspelt optional key
  /// is an error instead of a silently used default.
  void check_keys(const toml::table& table, const std::string& prefix,
                  std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : table)
      if (std::find(known.begin(), known.end(), key.str()) == known.end())
        fail(prefix + std::string{key.str()}, "unknown key");
  }

  // -- typed access; `name` is the dotted key used in messages --

  const toml::node* find(const toml::table* table, std::string_view key) const {
    return table ? table->get(key) : nullptr;
  }

  std::string_view last_part(std::string_view name) const {
    auto dot = name.rfind('.');
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
  }

  std::optional<std::string> optional_string(const toml::table* table,
                                             std::string_view name) const {
    const auto* node = find(table, last_part(name));
    if (!node)
      return std::nullopt;
    if (!node->is_string())
      fail(name, "expected a string, got " + type_name(*node));
    return node->as_string()->get();
  }
  std::optional<std::string> optional_string(const toml::table& table,
                                             std::string_view name) const {
    return optional_string(&table, name);
  }

  std::string required_string(const toml::table* table, std::string_view name) const {
    auto value = optional_string(table, name);
    if (!value)
      missing(name);
    return *value;
  }

  std::optional<bool> optional_bool(const toml::table* table,
                                    std::string_view name) const {
    const auto* node = find(table, last_part(name));
    if (!node)
      return std::nullopt;
    if (!node->is_boolean())
      fail(name, "expected true or false, got " + type_name(*node));
    return node->as_boolean()->get();
  }

  std::optional<long long> optional_integer(const toml::table& table,
                                            std::string_view name) const {
    const auto* node = find(&table, last_part(name));
    if (!node)
      return std::nullopt;
    if (!node->is_integer())
      fail(name, "expected an integer, got " + type_name(*node));
    return node->as_integer()->get();
  }

  std::optional<long long> non_negative_integer(const toml::table* table,
                                                std::string_view name) const {
    if (!table)
      return std::nullopt;
    auto value = optional_integer(*table, name);
    if (value && *value < 0)
      fail(name, "expected 0 or more, got " + std::to_string(*value));
    return value;
  }

  /// An integer in low..high, `fallback` when absent.
  long long integer_in(const toml::table* table, std::string_view name,
                       long long fallback, long long low, long long high) const {
    auto value = table ? optional_integer(*table, name).value_or(fallback) : fallback;
    if (value < low || value > high)
      fail(name, "expected " + std::to_string(low) + ".." + std::to_string(high) +
                     ", got " + std::to_string(value));
    return value;
  }

  std::string required_id(const toml::table& table, std::string_view name) const {
    auto id = required_string(&table, name);
    if (!is_valid_id(id))
      fail(name, "expected 1 to 32 of a-z, 0-9 and '-', got " + in_quotes(id));
    return id;
  }

  host_port required_host_port(const toml::table* table, std::string_view name) const {
    auto text = required_string(table, name);
    auto value = parse_host_port(text);
    if (!value)
      fail(name, "expected host:port with a port in 1..65535, got " + in_quotes(text));
    return *value;
  }

  int shard_count(const toml::table& table, std::string_view name) const {
    auto value = optional_integer(table, name).value_or(default_shards);
    if (value < 1 || value > max_shards)
      fail(name, "expected 1..1024, got " + std::to_string(value));
    return static_cast<int>(value);
  }

  /// A settings table such as [redis] with the keys it may hold; null when absent.
  const toml::table* setting_table(std::string_view table,
                                   std::initializer_list<std::string_view> keys) const {
    const auto* node = root_.get(table);
    if (!node)
      return nullptr;
    if (!node->is_table())
      fail(table, "expected a table, got " + type_name(*node));
    check_keys(*node->as_table(), std::string{table} + ".", keys);
    return node->as_table();
  }

  /// The tables of an array of tables such as [[nodes]]; null when absent.
  const toml::array* table_array(const toml::table& table,
                                 const std::string& name) const {
    const auto* node = find(&table, last_part(name));
    if (!node)
      return nullptr;
    const auto* array = node->as_array();
    if (!array || !array->is_array_of_tables())
      fail(name,
           "expected an array of tables ([[" + std::string{last_part(name)} + "]])");
    return array;
  }

  static bool valid_redis_address(std::string_view address) {
    constexpr std::string_view unix_prefix = "unix:";
    if (address.substr(0, unix_prefix.size()) == unix_prefix)
      return address.size() > unix_prefix.size() + 1 &&
             address[unix_prefix.size()] == '/';
    return parse_host_port(address).has_value();
  }

  // -- paths and keys --

  const toml::table* federation_table() const {
    return setting_table("federation",
                         {"listen", "max_clock_skew_ms", "lookups_per_second",
                          "lookup_burst", "ack_timeout_seconds", "ca_file",
                          "certificate_file", "signing_key_file"});
  }

  /// An optional file's absolute path, checked readable (its content is
  /// checked where it is used: TLS files when the node starts); empty if unset.
  std::string optional_file(const toml::table* table, const std::string& key) const {
    auto file = optional_string(table, key);
    if (!file)
      return {};
    auto path = path_value(key, *file);
    read_whole_file(path, display_name(key));
    return path.string();
  }

  /// Both files or neither (missing_credentials says when they are needed).
  tls_identity read_tls_identity(const toml::table* table,
                                 const std::string& section) const {
    tls_identity tls{optional_file(table, section + ".ca_file"),
                     optional_file(table, section + ".certificate_file")};
    if (tls.ca_file.empty() != tls.certificate_file.empty())
      fail(section + (tls.ca_file.empty() ? ".ca_file" : ".certificate_file"),
           "missing: a TLS identity needs both the CA and the certificate file");
    return tls;
  }

  /// A PEM file's text (a key the node parses when it starts); empty if unset.
  std::string optional_pem_file(const toml::table* table, const std::string& key) const {
    auto file = optional_string(table, key);
    if (!file)
      return {};
    auto text = read_whole_file(path_value(key, *file), display_name(key));
    if (text.find("-----BEGIN ") == std::string::npos)
      fail(key, "expected a PEM file (-----BEGIN ...)");
    return text;
  }

  /// Options are relative to the working directory, file keys to the file's
  /// folder, so that a deployment folder can be moved as a whole.
  fs::path path_value(std::string_view key, const std::string& text) const {
    if (text.empty())
      fail(key, "expected a path, got \"\"");
    fs::path base = flags_.count(key) ? fs::current_path() : file_dir_;
    return (base / text).lexically_normal();
  }

  std::string read_key_file(std::string_view key) const {
    auto path = path_value(key, required_string(&root_, key));
    return read_whole_file(path, display_name(key));
  }

  core::keyring read_keyring() const {
    auto bytes = read_key_file("seal_key_file");
    try {
      return parse_keyring(bytes);
    } catch (const std::exception& e) {
      fail("seal_key_file", e.what());
    }
  }

  /// A bearer token file's content, whitespace trimmed (key_file, token_file).
  std::string read_token_file(std::string_view key, const std::string& file) const {
    auto token = trimmed(read_whole_file(path_value(key, file), display_name(key)));
    if (token.empty())
      fail(key, "the file holds no token");
    if (!is_bearer_token(token))
      fail(key, "the token must be one word of visible ASCII characters");
    return token;
  }

  /// [redis] password_file: the content without its final newline (an
  /// editor's); empty when unset. The password itself is never in a message.
  std::string read_redis_password(const toml::table* redis) const {
    auto file = optional_string(redis, "redis.password_file");
    if (!file)
      return {};
    auto password = read_whole_file(path_value("redis.password_file", *file),
                                    display_name("redis.password_file"));
    if (!password.empty() && password.back() == '\n')
      password.pop_back();
    if (!password.empty() && password.back() == '\r')
      password.pop_back();
    if (password.empty())
      fail("redis.password_file", "the file holds no password");
    if (password.find_first_of("\r\n") != std::string::npos)
      fail("redis.password_file", "the password must be one line");
    return password;
  }

  std::string read_admin_key(const toml::table* admin) const {
    auto file = optional_string(admin, "admin.key_file");
    if (!file)
      return {};
    auto key = read_token_file("admin.key_file", *file);
    if (key.size() < min_admin_key_size)
      fail("admin.key_file", "the key must be at least " +
                                 std::to_string(min_admin_key_size) +
                                 " characters (whitespace trimmed), the file holds " +
                                 std::to_string(key.size()));
    return key;
  }

  // -- registration --

  sms_settings read_sms() const {
    const auto* table =
        setting_table("sms", {"kind", "url", "timeout_ms", "attempts", "token_file"});
    sms_settings s;
    s.kind = optional_string(table, "sms.kind").value_or("none");
    if (s.kind != "none" && s.kind != "file" && s.kind != "http")
      fail("sms.kind", "expected none, file or http, got " + in_quotes(s.kind));
    s.timeout =
        std::chrono::milliseconds{integer_in(table, "sms.timeout_ms", 2000, 1, 600'000)};
    s.attempts = static_cast<int>(integer_in(table, "sms.attempts", 3, 1, 100));
    // url and token_file are read for http only, so that switching kind to
    // file or none (say with --sms) needs no other change.
    if (s.kind != "http")
      return s;
    auto url = optional_string(table, "sms.url");
    if (!url)
      fail("sms.url", "missing: required when sms.kind is \"http\" (set it in the "
                      "file or with --sms-url)");
    if (auto problem = url_problem(*url); !problem.empty())
      fail("sms.url", problem);
    s.url = *url;
    if (auto file = optional_string(table, "sms.token_file"))
      s.token = read_token_file("sms.token_file", *file);
    return s;
  }

  registration_settings read_registration() const {
    const auto* table =
        setting_table("registration", {"code_ttl_seconds", "max_code_attempts",
                                       "codes_per_msisdn", "code_window_seconds",
                                       "requests_per_address", "address_window_seconds"});
    constexpr long long day = 24 * 60 * 60;
    registration_settings r;
    r.code_ttl = std::chrono::seconds{
        integer_in(table, "registration.code_ttl_seconds", 300, 1, day)};
    r.max_code_attempts =
        static_cast<int>(integer_in(table, "registration.max_code_attempts", 5, 1, 1000));
    r.codes_per_msisdn =
        static_cast<int>(integer_in(table, "registration.codes_per_msisdn", 3, 1, 1000));
    r.code_window = std::chrono::seconds{
        integer_in(table, "registration.code_window_seconds", 600, 1, 7 * day)};
    r.requests_per_address = static_cast<int>(
        integer_in(table, "registration.requests_per_address", 30, 1, 1'000'000));
    r.address_window = std::chrono::seconds{
        integer_in(table, "registration.address_window_seconds", 60, 1, day)};
    return r;
  }

  // -- nodes and peers --

  /// Reads [[nodes]]-style entries and checks that their shards partition
  /// 0..shards-1. `name` is "nodes" or "peers[i].nodes".
  std::vector<node_entry> read_nodes(const toml::array& array, const std::string& name,
                                     int shards) const {
    std::vector<node_entry> nodes;
    std::vector<int> owner(static_cast<std::size_t>(shards), -1);
    for (std::size_t i = 0; i < array.size(); ++i) {
      const auto& table = *array[i].as_table();
      auto entry_name = name + "[" + std::to_string(i) + "]";
      check_keys(table, entry_name + ".", {"id", "federation", "cluster", "shards"});
      node_entry entry;
      entry.id = required_id(table, entry_name + ".id");
      for (const auto& other : nodes)
        if (other.id == entry.id)
          fail(entry_name + ".id", "node id " + in_quotes(entry.id) + " is used twice");
      entry.federation = required_host_port(&table, entry_name + ".federation");
      if (table.contains("cluster"))
        entry.cluster = required_host_port(&table, entry_name + ".cluster");
      auto shards_name = entry_name + ".shards";
      const auto* list = table.get_as<toml::array>("shards");
      if (!list)
        fail(shards_name,
             table.get("shards") ? "expected an array of shard numbers" : "missing");
      if (list->empty())
        fail(shards_name, "empty: every node owns at least one shard");
      for (const auto& item : *list) {
        if (!item.is_integer())
          fail(shards_name, "expected shard numbers, got " + type_name(item));
        auto shard = item.as_integer()->get();
        if (shard < 0 || shard >= shards)
          fail(shards_name, "shard " + std::to_string(shard) + " is outside 0.." +
                                std::to_string(shards - 1));
        auto& current = owner[static_cast<std::size_t>(shard)];
        if (current >= 0)
          fail(shards_name, "shard " + std::to_string(shard) + " is also owned by " +
                                name + "[" + std::to_string(current) + "]");
        current = static_cast<int>(i);
        entry.shards.push_back(static_cast<int>(shard));
      }
      std::sort(entry.shards.begin(), entry.shards.end());
      nodes.push_back(std::move(entry));
    }
    auto gap = std::find(owner.begin(), owner.end(), -1);
    if (gap != owner.end())
      fail(name, "shard " + std::to_string(gap - owner.begin()) + " of 0.." +
                     std::to_string(shards - 1) + " is owned by no node");
    return nodes;
  }

  void read_own_nodes(node_config& c) const {
    const auto* array = table_array(root_, "nodes");
    const auto* federation_table = this->federation_table();
    if (!array) {
      c.nodes.push_back(node_entry{
          c.node, required_host_port(federation_table, "federation.listen"), {}, {}});
      for (int shard = 0; shard < c.shards; ++shard)
        c.nodes.back().shards.push_back(shard);
      return;
    }
    bool from_option = flags_.count("federation.listen") > 0;
    if (federation_table && federation_table->contains("listen") && !from_option)
      fail("federation.listen",
           "not allowed with [[nodes]]: each node's address is its entry's federation");
    c.nodes = read_nodes(*array, "nodes", c.shards);
    auto self = std::find_if(c.nodes.begin(), c.nodes.end(),
                             [&](const node_entry& n) { return n.id == c.node; });
    if (self == c.nodes.end())
      fail("node", in_quotes(c.node) + " is not one of the [[nodes]]");
    if (from_option)
      self->federation = required_host_port(federation_table, "federation.listen");
    if (c.nodes.size() > 1)
      for (std::size_t i = 0; i < c.nodes.size(); ++i)
        if (c.nodes[i].cluster.port == 0)
          fail("nodes[" + std::to_string(i) + "].cluster",
               "missing: the nodes of a carrier reach each other there");
  }

  std::vector<peer_entry> read_peers(const std::string& carrier) const {
    std::vector<peer_entry> peers;
    const auto* array = table_array(root_, "peers");
    if (!array)
      return peers;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto& table = *(*array)[i].as_table();
      auto name = "peers[" + std::to_string(i) + "]";
      check_keys(table, name + ".", {"id", "shards", "nodes", "public_key_file"});
      peer_entry peer;
      peer.id = required_id(table, name + ".id");
      if (peer.id == carrier)
        fail(name + ".id", in_quotes(peer.id) + " is this carrier, not a peer");
      for (const auto& other : peers)
        if (other.id == peer.id)
          fail(name + ".id", "peer id " + in_quotes(peer.id) + " is used twice");
      peer.shards = shard_count(table, name + ".shards");
      const auto* nodes = table_array(table, name + ".nodes");
      if (!nodes)
        fail(name + ".nodes", "missing: list the peer's nodes as [[peers.nodes]]");
      peer.nodes = read_nodes(*nodes, name + ".nodes", peer.shards);
      peer.public_key = optional_pem_file(&table, name + ".public_key_file");
      peers.push_back(std::move(peer));
    }
    return peers;
  }

  const toml::table& root_;
  fs::path file_dir_;
  /// Dotted key -> the option that overrode it.
  std::map<std::string, std::string, std::less<>> flags_;
};

// -- command line ------------------------------------------------------------

load_result failure(std::string what) {
  load_result result;
  result.error = "config error: " + what;
  return result;
}

/// The options whose value is a number (the reader checks its range).
constexpr std::string_view numeric_flags[] = {
    "--max-replication-lag-ms", "--max-in-flight",          "--mass-deletion-min-cards",
    "--mass-deletion-percent",  "--history-keep-days",      "--history-keep-versions",
    "--sms-timeout-ms",         "--sms-attempts",           "--code-ttl-seconds",
    "--max-code-attempts",      "--codes-per-msisdn",       "--code-window-seconds",
    "--requests-per-address",   "--address-window-seconds", "--max-clock-skew-ms",
    "--lookups-per-second",     "--lookup-burst",           "--ack-timeout-seconds"};

/// Stores an option's value in the document at its dotted key, so that one
/// reader validates file values and options alike.
void apply_override(toml::table& root, const option_spec& spec,
                    const std::string& value) {
  auto dot = spec.key.find('.');
  toml::table* table = &root;
  auto key = spec.key;
  if (dot != std::string_view::npos) {
    auto outer = spec.key.substr(0, dot);
    if (!root.contains(outer))
      root.insert(outer, toml::table{});
    table = root.get_as<toml::table>(outer);
    if (!table)
      throw config_error(std::string{outer} + ": expected a table");
    key = spec.key.substr(dot + 1);
  }
  if (spec.flag == "--shards") {
    auto number = parse_decimal(value);
    if (!number || *number < 1)
      throw config_error("--shards: expected a positive integer, got " +
                         in_quotes(value));
    table->insert_or_assign(key, static_cast<int64_t>(*number));
  } else if (std::find(std::begin(numeric_flags), std::end(numeric_flags), spec.flag) !=
             std::end(numeric_flags)) {
    auto number = parse_decimal(value);
    if (!number)
      throw config_error(std::string{spec.flag} + ": expected a number, got " +
                         in_quotes(value));
    table->insert_or_assign(key, static_cast<int64_t>(*number));
  } else if (spec.flag == "--metrics") {
    if (value != "on" && value != "off")
      throw config_error("--metrics: expected on or off, got " + in_quotes(value));
    table->insert_or_assign(key, value == "on");
  } else {
    table->insert_or_assign(key, value);
  }
}

} // namespace

// -- public API ----------------------------------------------------------------

std::string missing_credentials(const node_config& c) {
  auto missing = [](const std::string& key, const std::string& why) {
    return "config error: " + key + ": missing (" + why + ")";
  };
  if (c.federation_tls.certificate_file.empty())
    return missing("federation.certificate_file",
                   "the federation port runs over TLS only; with federation.ca_file");
  if (c.signing_key.empty())
    return missing("federation.signing_key_file", "every batch to a peer is signed");
  for (std::size_t i = 0; i < c.peers.size(); ++i)
    if (c.peers[i].public_key.empty())
      return missing("peers[" + std::to_string(i) + "].public_key_file",
                     "batches from " + c.peers[i].id + " are checked against it");
  if (c.self().cluster.port != 0 && c.cluster_tls.certificate_file.empty())
    return missing("cluster.certificate_file",
                   "the cluster port runs over TLS only; with cluster.ca_file");
  if (c.redis_password.empty())
    return missing("redis.password_file",
                   "the node's Redis requires a password: redis.user (" + c.redis_user +
                       ") authenticates with the file's content");
  return {};
}

std::string host_port::to_string() const {
  auto text = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return text + ":" + std::to_string(port);
}

const node_entry& node_config::self() const {
  for (const auto& entry : nodes)
    if (entry.id == node)
      return entry;
  throw std::logic_error("node_config: node " + node + " has no entry in nodes");
}

std::vector<std::string> peer_ids_of(const std::vector<peer_entry>& peers) {
  std::vector<std::string> ids;
  for (const auto& peer : peers)
    ids.push_back(peer.id);
  return ids;
}

std::vector<std::string> node_config::peer_ids() const {
  return peer_ids_of(peers);
}

std::vector<int> node_config::owned_shards() const {
  return self().shards;
}

const node_entry& owner_of(const std::vector<node_entry>& nodes, int shard) {
  for (const auto& entry : nodes)
    if (std::binary_search(entry.shards.begin(), entry.shards.end(), shard))
      return entry;
  throw std::out_of_range("owner_of: no node owns shard " + std::to_string(shard));
}

int shard_of(std::string_view idcode, int shards) {
  if (shards < 1)
    throw std::invalid_argument("shard_of: shards must be positive");
  if (idcode.size() < 8 || !std::all_of(idcode.begin(), idcode.begin() + 8, is_hex_digit))
    throw std::invalid_argument("shard_of: the idcode must start with 8 hex digits");
  std::uint32_t prefix = 0;
  std::from_chars(idcode.data(), idcode.data() + 8, prefix, 16);
  return static_cast<int>(prefix % static_cast<std::uint32_t>(shards));
}

int shard_of_line(std::string_view line_id, int shards) {
  if (shards < 1)
    throw std::invalid_argument("shard_of_line: shards must be positive");
  std::uint32_t hash = 2166136261u; // FNV-1a, 32 bits
  for (unsigned char c : line_id) {
    hash ^= c;
    hash *= 16777619u;
  }
  return static_cast<int>(hash % static_cast<std::uint32_t>(shards));
}

load_result load_node_config(int argc, const char* const* argv) {
  std::string program = argc > 0 ? fs::path{argv[0]}.filename().string() : "carrierd";
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--version") {
      load_result result;
      result.help = true;
      result.help_text = arg == "--version" ? program + " (simsync) " + version + "\n"
                                            : help_text(program);
      return result;
    }
  }
  // Later occurrences of an option win, as with most command-line tools.
  std::map<std::string_view, std::pair<const option_spec*, std::string>> given;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto eq = arg.find('=');
    auto flag = arg.substr(0, eq);
    const auto* spec = find_option(flag);
    if (arg.substr(0, 2) != "--" || !spec)
      return failure(std::string{flag} + ": unknown option (see --help)");
    std::string value;
    if (eq != std::string_view::npos)
      value = std::string{arg.substr(eq + 1)};
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return failure(std::string{flag} + ": missing value");
    given[spec->flag] = {spec, std::move(value)};
  }
  try {
    toml::table root;
    fs::path file_dir = fs::current_path();
    if (auto config = given.find("--config"); config != given.end()) {
      auto path = fs::absolute(config->second.second).lexically_normal();
      std::error_code ec;
      if (!fs::is_regular_file(path, ec))
        return failure("--config: " + in_quotes(path.string()) +
                       " is not a readable file");
      try {
        root = toml::parse_file(path.string());
      } catch (const toml::parse_error& e) {
        return failure(path.string() + ":" + std::to_string(e.source().begin.line) + ":" +
                       std::to_string(e.source().begin.column) + ": " +
                       std::string{e.description()});
      }
      file_dir = path.parent_path();
    }
    std::map<std::string, std::string, std::less<>> flags;
    for (const auto& [flag, entry] : given) {
      const auto& [spec, value] = entry;
      if (spec->key.empty())
        continue;
      apply_override(root, *spec, value);
      flags.emplace(std::string{spec->key}, std::string{flag});
    }
    load_result result;
    result.config = reader{root, file_dir, std::move(flags)}.read();
    return result;
  } catch (const config_error& e) {
    return failure(e.what());
  }
}

load_result load_node_config_file(const std::string& path) {
  const char* argv[] = {"carrierd", "--config", path.c_str()};
  return load_node_config(3, argv);
}

} // namespace simsync::config
