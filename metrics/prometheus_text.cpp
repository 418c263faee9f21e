#include "metrics/prometheus_text.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <sstream>

namespace simsync::metrics {

namespace {

using labels = std::map<std::string, std::string>;

/// Bucket bounds at powers of two microseconds, 8 µs to about 33 s: they fall
/// on latency_histogram's own bucket edges, so the counts are exact.
constexpr int first_bound_log2 = 3;
constexpr int last_bound_log2 = 25;

prometheus::Histogram::BucketBoundaries bounds_s() {
  prometheus::Histogram::BucketBoundaries out;
  for (int k = first_bound_log2; k <= last_bound_log2; ++k)
    out.push_back(static_cast<double>(std::uint64_t{1} << k) / 1e6);
  return out;
}

void observe(prometheus::Histogram& into, const latency_histogram& h) {
  std::vector<double> increments;
  std::uint64_t below = 0;
  for (int k = first_bound_log2; k <= last_bound_log2; ++k) {
    // Durations are whole microseconds, so "at most 2^k - 1" is "below 2^k".
    auto upto = h.count_at_most((std::uint64_t{1} << k) - 1);
    increments.push_back(static_cast<double>(upto - below));
    below = upto;
  }
  increments.push_back(static_cast<double>(h.count() - below)); // +Inf
  into.ObserveMultiple(increments, static_cast<double>(h.sum_us()) / 1e6);
}

labels with(labels base, std::initializer_list<labels::value_type> more) {
  for (const auto& kv : more)
    base.insert_or_assign(kv.first, kv.second);
  return base;
}

} // namespace

std::string to_prometheus(const node_snapshot& snap) {
  const auto& s = snap.sample;
  prometheus::Registry registry;
  const labels node = {{"carrier", s.carrier}, {"node", s.node}};

  prometheus::BuildGauge()
      .Name("simsync_build_info")
      .Help("Always 1; the version is a label")
      .Register(registry)
      .Add(with(node, {{"version", s.version}}))
      .Set(1);
  prometheus::BuildGauge()
      .Name("simsync_node_uptime_seconds")
      .Help("Seconds since the node started")
      .Register(registry)
      .Add(node)
      .Set(s.uptime_s);

  // -- the process, under the names Prometheus's own clients use --
  if (s.process.known) {
    const auto& p = s.process;
    prometheus::BuildCounter()
        .Name("process_cpu_seconds_total")
        .Help("User and system CPU time spent, in seconds")
        .Register(registry)
        .Add(node)
        .Increment(p.cpu_seconds);
    auto gauge = [&](const char* name, const char* help, double value) {
      prometheus::BuildGauge().Name(name).Help(help).Register(registry).Add(node).Set(
          value);
    };
    gauge("process_resident_memory_bytes", "Resident memory size in bytes",
          static_cast<double>(p.resident_bytes));
    gauge("process_virtual_memory_bytes", "Virtual memory size in bytes",
          static_cast<double>(p.virtual_bytes));
    gauge("process_open_fds", "Open file descriptors", static_cast<double>(p.open_fds));
    gauge("process_max_fds", "The limit of open file descriptors",
          static_cast<double>(p.max_fds));
    gauge("process_threads", "Threads of the process", static_cast<double>(p.threads));
    gauge("process_start_time_seconds", "Start time of the process since the Unix epoch",
          p.start_time_s);
  }

  // -- actors --
  auto& mailbox = prometheus::BuildGauge()
                      .Name("simsync_actor_mailbox_messages")
                      .Help("Messages waiting in the actor's mailbox")
                      .Register(registry);
  auto& processed = prometheus::BuildCounter()
                        .Name("simsync_actor_processed_messages_total")
                        .Help("Messages the actor has handled since it started")
                        .Register(registry);
  auto& restarts = prometheus::BuildCounter()
                       .Name("simsync_actor_restarts_total")
                       .Help("Times the node restarted the actor after a failure")
                       .Register(registry);
  auto& processing = prometheus::BuildHistogram()
                         .Name("simsync_actor_processing_seconds")
                         .Help("Time to handle one message (peer links: send to ack)")
                         .Register(registry);
  auto& link_up = prometheus::BuildGauge()
                      .Name("simsync_peer_link_up")
                      .Help("1 while the link to the peer carrier is up")
                      .Register(registry);
  auto& outbox = prometheus::BuildGauge()
                     .Name("simsync_peer_link_outbox_entries")
                     .Help("Outbox entries waiting for the peer's acknowledgement")
                     .Register(registry);
  auto& lag = prometheus::BuildGauge()
                  .Name("simsync_peer_link_lag_seconds")
                  .Help("Age of the oldest change the peer has not acknowledged")
                  .Register(registry);
  auto& bytes = prometheus::BuildCounter()
                    .Name("simsync_peer_link_sent_bytes_total")
                    .Help("Change bytes sent to the peer")
                    .Register(registry);
  auto& batches = prometheus::BuildCounter()
                      .Name("simsync_peer_link_sent_batches_total")
                      .Help("Outbox entries sent to the peer (resends included)")
                      .Register(registry);
  auto& refused =
      prometheus::BuildCounter()
          .Name("simsync_federation_refused_batches_total")
          .Help("Batches from peer carriers refused whole, by reason "
                "(unknown-origin, wrong-destination, bad-signature, malformed)")
          .Register(registry);
  auto& directory =
      prometheus::BuildCounter()
          .Name("simsync_directory_entries_total")
          .Help("Directory entries from peer carriers, by outcome (asked: a peer "
                "created an account; answered: this carrier holds one too; "
                "siblings_added, siblings_removed)")
          .Register(registry);
  auto& paced = prometheus::BuildCounter()
                    .Name("simsync_directory_paced_lookups_total")
                    .Help("Directory lookups from a peer carrier that waited for "
                          "its pace (federation.lookups_per_second)")
                    .Register(registry);
  for (const auto& a : snap.actors) {
    const auto& st = a.status;
    auto id = with(node, {{"actor", st.name}, {"kind", st.kind}});
    for (const auto& [reason, count] : st.refused)
      refused.Add(with(node, {{"reason", reason}})).Increment(static_cast<double>(count));
    for (const auto& [outcome, count] : st.directory)
      directory.Add(with(node, {{"outcome", outcome}}))
          .Increment(static_cast<double>(count));
    for (const auto& [peer, count] : st.paced)
      paced.Add(with(node, {{"peer", peer}})).Increment(static_cast<double>(count));
    mailbox.Add(id).Set(static_cast<double>(st.mailbox));
    processed.Add(id).Increment(static_cast<double>(st.processed));
    restarts.Add(id).Increment(st.restarts);
    if (!st.latency_counts.empty())
      observe(processing.Add(id, bounds_s()),
              latency_histogram::from(st.latency_counts, st.latency_sum_us));
    if (st.kind != "peer_link")
      continue;
    auto peer = with(node, {{"peer", st.peer}});
    link_up.Add(peer).Set(st.link_state == "up" ? 1 : 0);
    outbox.Add(peer).Set(static_cast<double>(st.outbox));
    lag.Add(peer).Set(static_cast<double>(st.lag_ms) / 1000.0);
    bytes.Add(peer).Increment(static_cast<double>(st.bytes_sent));
    batches.Add(peer).Increment(static_cast<double>(st.batches_sent));
  }

  // -- redis --
  auto& dead_letters =
      prometheus::BuildGauge()
          .Name("simsync_dead_letters")
          .Help("Entries from a peer carrier that failed their checks and "
                "wait for an operator (admin port: /admin/dead-letters)")
          .Register(registry);
  for (const auto& [peer, count] : s.redis.dead_letters)
    dead_letters.Add(with(node, {{"peer", peer}})).Set(static_cast<double>(count));
  auto& set_aside =
      prometheus::BuildGauge()
          .Name("simsync_outbox_set_aside")
          .Help("This node's outbox entries for a peer carrier whose cards were "
                "altered where they were stored: set aside, their cards sent again "
                "(Redis: setaside:<peer>)")
          .Register(registry);
  for (const auto& [peer, count] : s.redis.set_aside)
    set_aside.Add(with(node, {{"peer", peer}})).Set(static_cast<double>(count));
  prometheus::BuildGauge()
      .Name("simsync_redis_up")
      .Help("1 while the node's Redis answers")
      .Register(registry)
      .Add(node)
      .Set(s.redis.up ? 1 : 0);
  if (s.redis.up) {
    prometheus::BuildGauge()
        .Name("simsync_redis_ping_seconds")
        .Help("One PING round trip to the node's Redis")
        .Register(registry)
        .Add(node)
        .Set(s.redis.latency_ms / 1000.0);
    prometheus::BuildGauge()
        .Name("simsync_redis_used_memory_bytes")
        .Help("Redis used_memory")
        .Register(registry)
        .Add(node)
        .Set(static_cast<double>(s.redis.used_memory));
    prometheus::BuildGauge()
        .Name("simsync_redis_keys")
        .Help("Keys in the node's Redis database")
        .Register(registry)
        .Add(node)
        .Set(static_cast<double>(s.redis.keys));
    prometheus::BuildCounter()
        .Name("simsync_redis_commands_total")
        .Help("Redis total_commands_processed")
        .Register(registry)
        .Add(node)
        .Increment(static_cast<double>(s.redis.commands));
  }

  // -- gateway --
  if (snap.gateway) {
    auto& requests = prometheus::BuildCounter()
                         .Name("simsync_gateway_requests_total")
                         .Help("Requests answered, by route and status")
                         .Register(registry);
    auto& latency = prometheus::BuildHistogram()
                        .Name("simsync_gateway_request_duration_seconds")
                        .Help("From a request's arrival to its answer, by route")
                        .Register(registry);
    for (const auto& r : snap.gateway->routes) {
      for (const auto& [status, count] : r.total.answers)
        requests
            .Add(with(node,
                      {{"route", r.total.route}, {"status", std::to_string(status)}}))
            .Increment(static_cast<double>(count));
      observe(latency.Add(with(node, {{"route", r.total.route}}), bounds_s()),
              r.total.latency);
    }
    auto& shed = prometheus::BuildCounter()
                     .Name("simsync_gateway_shed_requests_total")
                     .Help("Requests refused with 503 to shed load, by reason: in_flight "
                           "(too many at once), replication_behind (a shared upload "
                           "while replication lags)")
                     .Register(registry);
    for (auto why : shed_reasons)
      shed.Add(with(node, {{"reason", to_string(why)}}))
          .Increment(static_cast<double>(
              snap.gateway->shed_by_reason[static_cast<std::size_t>(why)]));
    prometheus::BuildGauge()
        .Name("simsync_gateway_in_flight_requests")
        .Help("Requests being handled")
        .Register(registry)
        .Add(node)
        .Set(static_cast<double>(snap.gateway->in_flight));
  }

  std::ostringstream out;
  prometheus::TextSerializer{}.Serialize(out, registry.Collect());
  return out.str();
}

} // namespace simsync::metrics
