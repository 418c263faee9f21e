#include "metrics/node_snapshot.hpp"
#include "metrics/prometheus_text.hpp"

#include <gtest/gtest.h>

#include <ctime>

using namespace simsync::metrics;
using namespace std::chrono_literals;

namespace {

actor_status shard(std::uint64_t processed, std::chrono::microseconds each) {
  actor_status s;
  s.name = "account_shard/0";
  s.kind = "account_shard";
  s.shard = 0;
  s.processed = processed;
  latency_histogram h;
  for (std::uint64_t i = 0; i < processed; ++i)
    h.record(each);
  s.latency_counts = h.counts();
  s.latency_sum_us = h.sum_us();
  return s;
}

actor_status link(std::string state, std::uint64_t outbox, std::uint64_t lag_ms) {
  actor_status s;
  s.name = "peer_link/carrier-b";
  s.kind = "peer_link";
  s.peer = "carrier-b";
  s.link_state = std::move(state);
  s.outbox = outbox;
  s.lag_ms = lag_ms;
  return s;
}

node_sample sample_at(std::chrono::steady_clock::time_point at,
                      std::vector<actor_status> actors) {
  node_sample s;
  s.carrier = "carrier-a";
  s.node = "a1";
  s.version = "0.1.0";
  s.at = at;
  s.actors = std::move(actors);
  s.redis.up = true;
  return s;
}

} // namespace

TEST(node_snapshot, rates_and_percentiles_cover_the_last_interval) {
  auto t0 = std::chrono::steady_clock::now();
  auto first = summarize(sample_at(t0, {shard(100, 100us)}), nullptr);
  EXPECT_EQ(first.actors[0].rate, 0.0);
  // 400 more messages in 2 s, each far slower than the first 100.
  auto busy = shard(500, 100us);
  auto h = latency_histogram::from(shard(100, 100us).latency_counts, 100 * 100);
  for (int i = 0; i < 400; ++i)
    h.record(8ms);
  busy.latency_counts = h.counts();
  busy.latency_sum_us = h.sum_us();
  auto second = summarize(sample_at(t0 + 2s, {busy}), &first);
  EXPECT_DOUBLE_EQ(second.interval_s, 2.0);
  EXPECT_DOUBLE_EQ(second.actors[0].rate, 200.0);
  EXPECT_NEAR(second.actors[0].p50_ms, 8.0, 2.0);
  EXPECT_NEAR(second.actors[0].p99_ms, 8.0, 2.0);
}

TEST(node_snapshot, a_restarted_actor_counts_from_zero) {
  auto t0 = std::chrono::steady_clock::now();
  auto first = summarize(sample_at(t0, {shard(1000, 1ms)}), nullptr);
  auto second = summarize(sample_at(t0 + 1s, {shard(30, 1ms)}), &first);
  EXPECT_DOUBLE_EQ(second.actors[0].rate, 30.0);
}

TEST(node_snapshot, json_has_the_consoles_fields) {
  auto t0 = std::chrono::steady_clock::now();
  auto snap = summarize(sample_at(t0, {shard(5, 1ms), link("down", 7, 1500)}), nullptr);
  auto j = to_json(snap);
  EXPECT_EQ(j["carrier"], "carrier-a");
  EXPECT_EQ(j["node"], "a1");
  EXPECT_EQ(j["up"], true);
  ASSERT_EQ(j["actors"].size(), 2u);
  for (const auto& a : j["actors"])
    for (const char* key : {"name", "kind", "mailbox", "processed", "rate", "p50_ms"})
      EXPECT_TRUE(a.contains(key)) << key;
  ASSERT_EQ(j["links"].size(), 1u);
  EXPECT_EQ(j["links"][0]["peer"], "carrier-b");
  EXPECT_EQ(j["links"][0]["state"], "down");
  EXPECT_EQ(j["links"][0]["outbox"], 7);
  EXPECT_EQ(j["links"][0]["lag_ms"], 1500);
}

TEST(node_snapshot, gateway_rates_per_route) {
  request_meter meter;
  ASSERT_TRUE(meter.admit(10));
  meter.answered("GET /x", 200, 2ms);
  auto t0 = std::chrono::steady_clock::now();
  auto s0 = sample_at(t0, {});
  s0.gateway = meter.take();
  auto first = summarize(s0, nullptr);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(meter.admit(10));
    meter.answered("GET /x", i % 2 ? 200 : 404, 2ms);
  }
  auto s1 = sample_at(t0 + 1s, {});
  s1.gateway = meter.take();
  auto second = summarize(s1, &first);
  ASSERT_TRUE(second.gateway);
  ASSERT_EQ(second.gateway->routes.size(), 1u);
  EXPECT_DOUBLE_EQ(second.gateway->routes[0].rate, 10.0);
  EXPECT_EQ(second.gateway->routes[0].total.answers.at(404), 5u);
  EXPECT_EQ(second.gateway->routes[0].total.answers.at(200), 6u);
}

TEST(request_meter, sheds_beyond_the_limit_and_counts_it_by_reason) {
  request_meter meter;
  EXPECT_TRUE(meter.admit(2));
  EXPECT_TRUE(meter.admit(2));
  EXPECT_FALSE(meter.admit(2));
  EXPECT_EQ(meter.in_flight(), 2u);
  meter.answered("GET /x", 200, 1ms);
  EXPECT_TRUE(meter.admit(2));
  meter.shed(shed_reason::replication_behind);
  meter.shed(shed_reason::replication_behind);
  auto taken = meter.take();
  EXPECT_EQ(taken.shed[static_cast<std::size_t>(shed_reason::in_flight)], 1u);
  EXPECT_EQ(taken.shed[static_cast<std::size_t>(shed_reason::replication_behind)], 2u);
}

TEST(process_sample, reads_this_process_from_the_operating_system) {
  auto p = read_process_sample();
  ASSERT_TRUE(p.known);
  EXPECT_GT(p.resident_bytes, 1u << 20); // a test binary takes more than a MiB
  EXPECT_GE(p.threads, 1u);
  EXPECT_GE(p.open_fds, 3u); // stdin, stdout, stderr
  EXPECT_GE(p.max_fds, p.open_fds);
  auto now_s = static_cast<double>(std::time(nullptr));
  EXPECT_GT(p.start_time_s, now_s - 3600) << "started within the hour";
  EXPECT_LE(p.start_time_s, now_s + 1);
  // Spend CPU: the counter must move.
  volatile double x = 0;
  for (int i = 0; i < 50'000'000; ++i)
    x = x + i * 0.5;
  EXPECT_GT(read_process_sample().cpu_seconds, p.cpu_seconds);
}

TEST(prometheus_text, the_process_is_shown_under_the_standard_names) {
  auto s = sample_at(std::chrono::steady_clock::now(), {shard(3, 500us)});
  s.process = read_process_sample();
  s.process.threads = 17;
  auto text = to_prometheus(summarize(s, nullptr));
  EXPECT_NE(text.find("process_threads{carrier=\"carrier-a\",node=\"a1\"} 17"),
            std::string::npos)
      << text;
  for (const char* name :
       {"process_cpu_seconds_total{", "process_resident_memory_bytes{",
        "process_open_fds{", "process_max_fds{", "process_start_time_seconds{"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
}

TEST(prometheus_text, every_series_carries_the_node_and_histograms_add_up) {
  auto t0 = std::chrono::steady_clock::now();
  auto s = sample_at(t0, {shard(3, 500us), link("up", 2, 40)});
  request_meter meter;
  ASSERT_TRUE(meter.admit(1));
  ASSERT_FALSE(meter.admit(1));
  meter.answered("PUT /v1/lines/{msisdn}/contacts", 200, 3ms);
  s.gateway = meter.take();
  auto text = to_prometheus(summarize(s, nullptr));
  EXPECT_NE(text.find("simsync_actor_processed_messages_total{actor=\"account_shard/0\","
                      "carrier=\"carrier-a\",kind=\"account_shard\",node=\"a1\"} 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("simsync_actor_processing_seconds_count{actor=\"account_shard/0\","
                      "carrier=\"carrier-a\",kind=\"account_shard\",node=\"a1\"} 3"),
            std::string::npos);
  EXPECT_NE(text.find("simsync_peer_link_lag_seconds{carrier=\"carrier-a\",node=\"a1\","
                      "peer=\"carrier-b\"} 0.04"),
            std::string::npos);
  EXPECT_NE(text.find("simsync_gateway_requests_total{carrier=\"carrier-a\",node=\"a1\","
                      "route=\"PUT /v1/lines/{msisdn}/contacts\",status=\"200\"} 1"),
            std::string::npos);
  EXPECT_NE(
      text.find("simsync_gateway_shed_requests_total{carrier=\"carrier-a\",node=\"a1\","
                "reason=\"in_flight\"} 1"),
      std::string::npos);
  EXPECT_NE(
      text.find("simsync_gateway_shed_requests_total{carrier=\"carrier-a\",node=\"a1\","
                "reason=\"replication_behind\"} 0"),
      std::string::npos);
  // 500 µs lies below the 512 µs bound: every observation is in that bucket.
  EXPECT_NE(text.find("le=\"0.000512\"} 3"), std::string::npos);
}
