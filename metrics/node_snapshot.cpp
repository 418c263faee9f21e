#include "metrics/node_snapshot.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace simsync::metrics {

namespace {

double ms(double us) {
  return us / 1000.0;
}

/// Per second over `interval_s`; a counter that went backwards was restarted.
double per_second(std::uint64_t now, std::uint64_t before, double interval_s) {
  if (interval_s <= 0)
    return 0;
  auto delta = now >= before ? now - before : now;
  return static_cast<double>(delta) / interval_s;
}

template <class View> void set_percentiles(View& view, const latency_histogram& recent) {
  view.p50_ms = ms(recent.quantile_us(0.50));
  view.p99_ms = ms(recent.quantile_us(0.99));
}

std::uint64_t answered(const request_meter::route_sample& route) {
  std::uint64_t n = 0;
  for (const auto& [status, count] : route.answers)
    n += count;
  return n;
}

gateway_view summarize_gateway(const request_meter::sample& now,
                               const gateway_view* before, double interval_s) {
  gateway_view out;
  for (auto why : shed_reasons) {
    auto i = static_cast<std::size_t>(why);
    out.shed_by_reason[i] = now.shed[i];
    out.shed += now.shed[i];
  }
  out.in_flight = now.in_flight;
  for (const auto& route : now.routes) {
    route_view view;
    view.total = route;
    const request_meter::route_sample* earlier = nullptr;
    if (before)
      for (const auto& b : before->routes)
        if (b.total.route == route.route)
          earlier = &b.total;
    auto count = answered(route);
    view.rate = per_second(count, earlier ? answered(*earlier) : 0, interval_s);
    set_percentiles(view,
                    earlier ? route.latency.since(earlier->latency) : route.latency);
    out.rate += view.rate;
    out.routes.push_back(std::move(view));
  }
  return out;
}

nlohmann::json shed_by_reason(const gateway_view& g) {
  auto out = nlohmann::json::object();
  for (auto why : shed_reasons)
    out[to_string(why)] = g.shed_by_reason[static_cast<std::size_t>(why)];
  return out;
}

nlohmann::json link_json(const actor_view& a) {
  const auto& s = a.status;
  return {{"peer", s.peer},
          {"state", s.link_state},
          {"outbox", s.outbox},
          {"lag_ms", s.lag_ms},
          {"rtt_ms", a.p50_ms},
          {"rtt_p99_ms", a.p99_ms},
          {"rate", a.rate},
          {"acknowledged", s.acknowledged},
          {"batches_sent", s.batches_sent},
          {"bytes_sent", s.bytes_sent},
          {"card_forms", s.card_forms},
          {"last_error", s.last_error}};
}

} // namespace

node_snapshot summarize(node_sample now, const node_snapshot* previous) {
  // Statuses arrive in the order the actors answered; show them in a fixed one.
  std::sort(now.actors.begin(), now.actors.end(), [](const auto& a, const auto& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  });
  node_snapshot out;
  if (previous)
    out.interval_s = std::chrono::duration<double>(now.at - previous->sample.at).count();
  std::map<std::string, const actor_status*> before;
  if (previous)
    for (const auto& a : previous->actors)
      before[a.status.name] = &a.status;
  for (auto& s : now.actors) {
    actor_view view;
    view.status = std::move(s);
    const auto& st = view.status;
    auto total = latency_histogram::from(st.latency_counts, st.latency_sum_us);
    auto it = before.find(st.name);
    if (it != before.end()) {
      view.rate = per_second(st.processed, it->second->processed, out.interval_s);
      total = total.since(latency_histogram::from(it->second->latency_counts,
                                                  it->second->latency_sum_us));
    }
    set_percentiles(view, total);
    out.actors.push_back(std::move(view));
  }
  if (previous && previous->sample.redis.up && now.redis.up)
    now.redis.commands_per_s =
        per_second(now.redis.commands, previous->sample.redis.commands, out.interval_s);
  if (now.gateway)
    out.gateway = summarize_gateway(
        *now.gateway, previous && previous->gateway ? &*previous->gateway : nullptr,
        out.interval_s);
  // Their figures now live in the views.
  now.actors.clear();
  now.gateway.reset();
  out.sample = std::move(now);
  return out;
}

nlohmann::json to_json(const node_snapshot& snap) {
  const auto& s = snap.sample;
  auto actors = nlohmann::json::array();
  auto links = nlohmann::json::array();
  for (const auto& a : snap.actors) {
    const auto& st = a.status;
    nlohmann::json actor = {{"name", st.name},
                            {"kind", st.kind},
                            {"mailbox", st.mailbox},
                            {"processed", st.processed},
                            {"rate", a.rate},
                            {"p50_ms", a.p50_ms},
                            {"p99_ms", a.p99_ms},
                            {"restarts", st.restarts},
                            {"last_error", st.last_error}};
    if (st.shard >= 0)
      actor["shard"] = st.shard;
    if (st.kind == "federation")
      actor["refused"] = st.refused;
    if (st.kind == "user_directory") {
      actor["directory"] = st.directory;
      actor["paced"] = st.paced;
    }
    if (st.kind == "peer_link") {
      actor["peer"] = st.peer;
      actor["state"] = st.link_state;
      actor["outbox"] = st.outbox;
      actor["lag_ms"] = st.lag_ms;
      actor["card_forms"] = st.card_forms;
      links.push_back(link_json(a));
    }
    actors.push_back(std::move(actor));
  }
  nlohmann::json redis = {{"address", s.redis.address},
                          {"up", s.redis.up},
                          {"latency_ms", s.redis.latency_ms},
                          {"used_memory", s.redis.used_memory},
                          {"keys", s.redis.keys},
                          {"commands", s.redis.commands},
                          {"commands_per_s", s.redis.commands_per_s},
                          {"dead_letters", s.redis.dead_letters},
                          {"set_aside", s.redis.set_aside}};
  if (!s.redis.error.empty())
    redis["error"] = s.redis.error;
  nlohmann::json out = {{"carrier", s.carrier},          {"node", s.node},
                        {"version", s.version},          {"up", true},
                        {"uptime_s", s.uptime_s},        {"time_ms", s.unix_ms},
                        {"interval_s", snap.interval_s}, {"actors", std::move(actors)},
                        {"links", std::move(links)},     {"redis", std::move(redis)}};
  if (s.process.known)
    out["process"] = {{"cpu_seconds", s.process.cpu_seconds},
                      {"resident_bytes", s.process.resident_bytes},
                      {"open_fds", s.process.open_fds},
                      {"max_fds", s.process.max_fds},
                      {"threads", s.process.threads}};
  if (snap.gateway) {
    auto routes = nlohmann::json::array();
    for (const auto& r : snap.gateway->routes) {
      auto answers = nlohmann::json::object();
      for (const auto& [status, count] : r.total.answers)
        answers[std::to_string(status)] = count;
      routes.push_back({{"route", r.total.route},
                        {"answers", std::move(answers)},
                        {"rate", r.rate},
                        {"p50_ms", r.p50_ms},
                        {"p99_ms", r.p99_ms}});
    }
    out["gateway"] = {{"rate", snap.gateway->rate},
                      {"in_flight", snap.gateway->in_flight},
                      {"shed", snap.gateway->shed},
                      {"shed_by_reason", shed_by_reason(*snap.gateway)},
                      {"routes", std::move(routes)}};
  }
  return out;
}

} // namespace simsync::metrics
