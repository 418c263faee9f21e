// What sealing costs per card: AES-256-GCM of a ~200-byte card bound to its
// account (core::keyring::seal / open), and a line id (lookup_hash).
// Run: core_seal_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "core/keyring.hpp"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using simsync::core::keyring;

const std::string account(64, 'a');

keyring ring() {
  return keyring({{1, std::string(32, '\x11')}}, 1, std::string(32, '\x33'));
}

std::string card(std::size_t bytes) {
  std::string out = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bench\r\nFN:Contact\r\nNOTE:";
  out.append(bytes > out.size() + 11 ? bytes - out.size() - 11 : 0, 'x');
  return out + "\r\nEND:VCARD\r\n";
}

void seal_card(benchmark::State& state) {
  auto keys = ring();
  auto plain = card(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(keys.seal(plain, account));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * plain.size()));
}
BENCHMARK(seal_card)->Arg(200)->Arg(2000);

void open_card(benchmark::State& state) {
  auto keys = ring();
  auto sealed = keys.seal(card(static_cast<std::size_t>(state.range(0))), account);
  for (auto _ : state)
    benchmark::DoNotOptimize(keys.open(sealed, account));
}
BENCHMARK(open_card)->Arg(200)->Arg(2000);

void line_id(benchmark::State& state) {
  auto keys = ring();
  for (auto _ : state)
    benchmark::DoNotOptimize(keys.lookup_hash("msisdn", "+8613800138000"));
}
BENCHMARK(line_id);

} // namespace

BENCHMARK_MAIN();
