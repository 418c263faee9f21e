// What collecting costs on the hot path, per message: an actor's timer (two
// clock reads and a histogram increment) and the gateway's per-request record
// (a mutex and a map lookup). Compare with the work they measure: a shard's
// Redis script takes 100 µs or more, a gateway request several hundred.
#include "metrics/latency_histogram.hpp"
#include "metrics/request_meter.hpp"

#include <benchmark/benchmark.h>

using namespace simsync::metrics;

namespace {

void BM_actor_timer(benchmark::State& state) {
  latency_histogram h;
  for (auto _ : state) {
    scoped_timer timer{&h};
    benchmark::DoNotOptimize(&h);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_gateway_record(benchmark::State& state) {
  request_meter meter;
  for (auto _ : state) {
    meter.admit(10'000);
    meter.answered("PUT /v1/lines/{msisdn}/contacts", 200,
                   std::chrono::microseconds{700});
  }
  state.SetItemsProcessed(state.iterations());
}

} // namespace

BENCHMARK(BM_actor_timer);
BENCHMARK(BM_gateway_record);
// Two threads recording at once, as CAF's workers do.
BENCHMARK(BM_gateway_record)->Threads(2);

BENCHMARK_MAIN();
