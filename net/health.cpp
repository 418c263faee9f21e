#include "net/health.hpp"

#include "core/error.hpp"

#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <set>

namespace simsync::net {

namespace {

constexpr auto redis_limit = std::chrono::seconds{1};
constexpr auto status_limit = std::chrono::seconds{3};
/// Longer than both checks together: the answer always has the reasons.
constexpr auto probe_limit = std::chrono::seconds{6};

std::string check_redis(const store::redis_endpoint& at) {
  auto client = store::redis_client::connect(at, redis_limit);
  if (!client)
    return describe(client.error());
  auto pong = client->call({"PING"});
  if (!pong)
    return describe(pong.error());
  if (pong->view().str() != "PONG")
    return "Redis at " + at.to_string() + " answered PING with " +
           std::string{pong->view().str()};
  return {};
}

/// The actors the node cannot serve without, and the reasons of those that
/// do not answer.
std::vector<std::string> check_actors(const readiness_probe& probe) {
  std::vector<std::string> reasons;
  caf::scoped_actor self{*probe.sys};
  std::vector<actor_status> statuses;
  bool answered = false;
  self->request(probe.node, status_limit, atom::status_v)
      .receive(
          [&](std::vector<actor_status>& all) {
            statuses = std::move(all);
            answered = true;
          },
          [&](const caf::error& err) {
            reasons.push_back("the node does not answer (it has stopped?): " +
                              probe.sys->render(err));
          });
  if (!answered)
    return reasons;
  std::set<std::string> needed{"router", "federation", "federation_applier",
                               "user_directory"};
  for (int shard : probe.shards)
    needed.insert("account_shard/" + std::to_string(shard));
  for (const auto& s : statuses) {
    if (!needed.count(s.name))
      continue;
    needed.erase(s.name);
    if (s.last_error.rfind("no status:", 0) == 0)
      reasons.push_back(s.name + " does not answer: " + s.last_error);
  }
  for (const auto& missing : needed)
    reasons.push_back(missing + " is not running");
  return reasons;
}

} // namespace

nlohmann::json check_readiness(const readiness_probe& probe) {
  auto reasons = nlohmann::json::array();
  auto checked = nlohmann::json::object();
  auto redis = check_redis(probe.redis_at);
  checked["redis"] = redis.empty() ? "ok" : redis;
  if (!redis.empty())
    reasons.push_back("redis: " + redis);
  auto actors = check_actors(probe);
  checked["actors"] = actors.empty() ? "ok" : "failing";
  for (auto& why : actors)
    reasons.push_back("actors: " + why);
  return {
      {"ready", reasons.empty()}, {"reasons", std::move(reasons)}, {"checked", checked}};
}

route_spec readiness_route(readiness_probe probe) {
  auto shared = std::make_shared<const readiness_probe>(std::move(probe));
  return {restinio::http_method_get(), "/readyz", "GET /readyz",
          [shared](const exchange_ptr& ex) {
            ex->run_blocking(
                [shared] { return check_readiness(*shared).dump(); }, probe_limit,
                [ex](const std::string& body) {
                  bool ready = nlohmann::json::parse(body).value("ready", false);
                  ex->reply(ready ? 200 : 503, "application/json", body,
                            {{"Cache-Control", "no-store"}});
                });
          }};
}

} // namespace simsync::net
