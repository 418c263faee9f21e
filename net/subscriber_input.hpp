#pragma once

// Subscriber records as the carrier's systems send them to the admin API:
// one JSON object, NDJSON (one object per line) or CSV with a header row.
// Every field is checked and the person normalized here, before anything is
// written, so that a bulk import with one bad record writes nothing.

#include "core/identity.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simsync::net {

struct subscriber_input {
  std::string msisdn;
  std::string iccid;
  core::user_info person; ///< normalized
  bool active = true;
};

struct parsed_subscriber {
  std::optional<subscriber_input> input;
  std::string error; ///< set when input is empty: which field, and why
};

/// One record: {"msisdn","iccid","name","id_number","active"}; "msisdn" may
/// come from the path instead (`path_msisdn`), and must then agree with the
/// body's if the body has one. "active" is optional (true).
parsed_subscriber parse_subscriber(const nlohmann::json& record,
                                   std::optional<std::string> path_msisdn = std::nullopt);

struct parsed_subscribers {
  std::vector<subscriber_input> inputs;
  /// (1-based line of the body, what is wrong), for every bad record.
  std::vector<std::pair<std::size_t, std::string>> errors;
};

/// NDJSON: one record object per line; blank lines are skipped.
parsed_subscribers parse_subscriber_ndjson(std::string_view body);

/// CSV (RFC 4180): a header row naming msisdn, iccid, name, id_number and
/// optionally active (true/false/1/0), in any order; fields may be quoted.
parsed_subscribers parse_subscriber_csv(std::string_view body);

} // namespace simsync::net
