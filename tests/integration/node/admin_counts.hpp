#pragma once

// What a node's admin port shows of its actors, for tests that check counts.

#include "tests/support/carrier_process.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace simsync::testing {

/// The counts under `field` (e.g. "refused", "directory") of the carrier's
/// first node's actor of kind `kind`, from /admin/actors (a snapshot the node
/// takes once a second); empty if the node does not answer.
inline std::map<std::string, int> actor_counts(deployment& d, const std::string& carrier,
                                               const std::string& kind,
                                               const std::string& field) {
  httplib::Client admin("127.0.0.1", d.admin_port(carrier));
  std::map<std::string, int> out;
  auto answer = admin.Get("/admin/actors");
  if (!answer || answer->status != 200)
    return out;
  auto json = nlohmann::json::parse(answer->body, nullptr, false);
  for (const auto& actor : json.value("actors", nlohmann::json::array()))
    if (actor.value("kind", "") == kind && actor.contains(field))
      for (const auto& [name, count] : actor[field].items())
        out[name] = count.get<int>();
  return out;
}

} // namespace simsync::testing
