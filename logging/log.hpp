#pragma once

// What a node tells its operator: one line per event, with key=value
// context, on stderr. An event has a fixed name (peer_link_down,
// redis_lost, ...) so that a line can be found and alerted on; its fields
// say which peer, shard or address, and why. Secrets are never a field.
//
//   2026-12-02T23:50:01.123Z warn peer_link_down carrier=a peer=b reason="..."
//   {"ts":"2026-12-02T23:50:01.123Z","level":"warn","event":"peer_link_down",...}

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace simsync::logging {

enum class level { trace, debug, info, warn, error };

enum class format {
  text, ///< key=value, for a terminal and for journald
  json, ///< one JSON object per line, for a log shipper
};

/// "trace", "debug", "info", "warn" or "error".
std::optional<level> level_named(std::string_view name);
/// "text" or "json".
std::optional<format> format_named(std::string_view name);

/// Sets what is written from now on; before it, info and above as text.
/// Safe to call again (a test switching to JSON).
void configure(level threshold, format how);

/// One key=value of an event's context.
struct field {
  std::string_view key;
  std::string value;

  field(std::string_view k, std::string v) : key(k), value(std::move(v)) {}
  field(std::string_view k, std::string_view v) : key(k), value(v) {}
  field(std::string_view k, const char* v) : key(k), value(v) {}
  field(std::string_view k, bool v) : key(k), value(v ? "true" : "false") {}
  template <typename Number, typename = decltype(std::to_string(Number{}))>
  field(std::string_view k, Number v) : key(k), value(std::to_string(v)) {}
};

using fields = std::initializer_list<field>;

/// Whether an event at `at` would be written (to skip building its fields).
bool enabled(level at);

void write(level at, std::string_view event, fields context = {});

inline void debug(std::string_view event, fields context = {}) {
  write(level::debug, event, context);
}
inline void info(std::string_view event, fields context = {}) {
  write(level::info, event, context);
}
inline void warn(std::string_view event, fields context = {}) {
  write(level::warn, event, context);
}
inline void error(std::string_view event, fields context = {}) {
  write(level::error, event, context);
}

/// The line `write` would print after its time and level: the event and its
/// fields, as text or as the inside of a JSON object (tested alone).
std::string render(format how, std::string_view event, fields context);

} // namespace simsync::logging
