#pragma once

// What a node's admin port shows of its actors, for tests that check counts.

#include "tests/integration/node/node_fixture.hpp" // eventually()
#include "tests/support/carrier_process.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <string>
#include <thread>

namespace simsync::testing {

/// The actors of the carrier's first node, from /admin/actors (a snapshot the
/// node takes once a second); empty if the node does not answer.
inline nlohmann::json admin_actors(deployment& d, const std::string& carrier) {
  httplib::Client admin("127.0.0.1", d.admin_port(carrier));
  auto answer = admin.Get("/admin/actors");
  if (!answer || answer->status != 200)
    return nlohmann::json::array();
  auto json = nlohmann::json::parse(answer->body, nullptr, false);
  return json.is_object() ? json.value("actors", nlohmann::json::array())
                          : nlohmann::json::array();
}

/// `processed` of the carrier's first node's actors by name
/// (account_shard/2, gateway/local_store).
inline std::map<std::string, int> processed_by_actor(deployment& d,
                                                     const std::string& carrier) {
  std::map<std::string, int> out;
  for (const auto& actor : admin_actors(d, carrier))
    out[actor.value("name", "")] = actor.value("processed", 0);
  return out;
}

/// processed_by_actor once the node is quiet: two snapshots in a row (taken a
/// second apart) agree. Empty if it does not settle in time.
inline std::map<std::string, int> settled_processed(deployment& d,
                                                    const std::string& carrier) {
  std::map<std::string, int> last;
  bool settled = eventually([&] {
    auto now = processed_by_actor(d, carrier);
    bool same = !now.empty() && now == last;
    last = now;
    if (!same)
      std::this_thread::sleep_for(std::chrono::milliseconds{1100});
    return same;
  });
  return settled ? last : std::map<std::string, int>{};
}

/// processed_by_actor once the actor `name` has processed at least `more`
/// than in `before` (or the last snapshot, if it never does in time: the
/// caller asserts on it).
inline std::map<std::string, int> processed_once(deployment& d,
                                                 const std::string& carrier,
                                                 std::map<std::string, int> before,
                                                 const std::string& name, int more) {
  std::map<std::string, int> now;
  eventually([&] {
    now = processed_by_actor(d, carrier);
    return now[name] >= before[name] + more;
  });
  return now;
}

/// The counts under `field` (e.g. "refused", "directory") of the carrier's
/// first node's actor of kind `kind`; empty if the node does not answer.
inline std::map<std::string, int> actor_counts(deployment& d, const std::string& carrier,
                                               const std::string& kind,
                                               const std::string& field) {
  std::map<std::string, int> out;
  for (const auto& actor : admin_actors(d, carrier))
    if (actor.value("kind", "") == kind && actor.contains(field))
      for (const auto& [name, count] : actor[field].items())
        out[name] = count.get<int>();
  return out;
}

} // namespace simsync::testing
