#pragma once

// How carrierd hands a registration code to a subscriber's phone: a text
// message through the carrier's SMS gateway ([sms] in the configuration).

#include "config/node_config.hpp"

#include <memory>
#include <string>

namespace simsync::net {

/// Delivers one text message to a phone number. Implementations are
/// thread-safe; send blocks until the message is handed over or given up.
class sms_gateway {
public:
  virtual ~sms_gateway() = default;

  /// Empty when the message was handed over; otherwise why not. The reason
  /// never holds the text (it carries a code) nor the token.
  virtual std::string send(const std::string& msisdn, const std::string& text) = 0;
};

/// The gateway `s` names; nullptr for kind "none". data_dir: the node's data
/// folder (kind "file" writes sms_file_path(data_dir)). Throws
/// std::invalid_argument for an unknown kind or an http url that is not
/// http:// or https:// with a host, which a validated configuration rules out.
std::shared_ptr<sms_gateway> make_sms_gateway(const config::sms_settings& s,
                                              const std::string& data_dir);

/// Where kind "file" writes: <data_dir>/sms.ndjson.
std::string sms_file_path(const std::string& data_dir);

/// Kind "file": appends one JSON line per message to `path`,
/// {"at":"<RFC 3339 UTC with ms>","to":"<msisdn>","text":"<text>"}, creating
/// the file (mode 0600) and its folder if missing. Each line is one write to
/// the file opened with O_APPEND, so lines stay whole even with several
/// writers; tools (tools/cluster sms) read the messages back from it.
std::shared_ptr<sms_gateway> make_file_sms_gateway(const std::string& path);

/// Kind "http": POSTs {"to":"<msisdn>","text":"<text>"} (application/json)
/// to s.url, with `Authorization: Bearer <s.token>` unless the token is
/// empty. A 2xx answer is delivery. A connection error, a timeout (s.timeout
/// per attempt), 5xx or 429 is tried again, up to s.attempts tries in all,
/// after a short pause (100 ms, doubling, at most 1 s); any other answer
/// fails at once. Throws std::invalid_argument as make_sms_gateway does.
std::shared_ptr<sms_gateway> make_http_sms_gateway(const config::sms_settings& s);

} // namespace simsync::net
