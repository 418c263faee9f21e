#include "logging/log.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>
#include <mutex>

namespace simsync::logging {

namespace {

std::atomic<level> threshold_now{level::info};
std::atomic<format> format_now{format::text};

const char* name_of(level l) {
  switch (l) {
  case level::trace:
    return "trace";
  case level::debug:
    return "debug";
  case level::info:
    return "info";
  case level::warn:
    return "warn";
  case level::error:
    return "error";
  }
  return "info"; // not reached
}

/// The time in UTC to the millisecond, then what render() made. spdlog
/// owns the sink's lock, so lines from many threads never interleave.
spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> the = [] {
    auto made = std::make_shared<spdlog::logger>(
        "simsync", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    made->set_level(spdlog::level::trace); // the threshold is ours
    made->flush_on(spdlog::level::trace);  // a line is out before a crash
    made->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %v", spdlog::pattern_time_type::utc);
    return made;
  }();
  return *the;
}

std::mutex pattern_lock;

/// Quoted when it would otherwise not read back as one value.
void append_text_value(std::string& out, std::string_view value) {
  bool plain = !value.empty();
  for (char c : value)
    if (c == ' ' || c == '"' || c == '=' || c == '\\' ||
        static_cast<unsigned char>(c) < 0x20)
      plain = false;
  if (plain) {
    out += value;
    return;
  }
  out += '"';
  for (char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  out += '"';
}

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string{s})
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

std::optional<level> level_named(std::string_view name) {
  for (auto l : {level::trace, level::debug, level::info, level::warn, level::error})
    if (name == name_of(l))
      return l;
  return std::nullopt;
}

std::optional<format> format_named(std::string_view name) {
  if (name == "text")
    return format::text;
  if (name == "json")
    return format::json;
  return std::nullopt;
}

void configure(level threshold, format how) {
  std::lock_guard guard{pattern_lock};
  threshold_now = threshold;
  format_now = how;
  logger().set_pattern(how == format::json ? R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ",%v})"
                                           : "%Y-%m-%dT%H:%M:%S.%eZ %v",
                       spdlog::pattern_time_type::utc);
}

bool enabled(level at) {
  return at >= threshold_now.load(std::memory_order_relaxed);
}

std::string render(format how, std::string_view event, fields context) {
  std::string out;
  if (how == format::json) {
    out += "\"event\":";
    out += json_string(event);
    for (const auto& f : context) {
      out += ',';
      out += json_string(f.key);
      out += ':';
      out += json_string(f.value);
    }
    out += '}';
    return out;
  }
  out += event;
  for (const auto& f : context) {
    out += ' ';
    out += f.key;
    out += '=';
    append_text_value(out, f.value);
  }
  return out;
}

void write(level at, std::string_view event, fields context) {
  if (!enabled(at))
    return;
  auto how = format_now.load(std::memory_order_relaxed);
  std::string line = how == format::json ? "\"level\":" + json_string(name_of(at)) + ","
                                         : std::string{name_of(at)} + " ";
  line += render(how, event, context);
  logger().log(spdlog::level::info, line);
}

} // namespace simsync::logging
