// What keeping a card at rest costs: compressing a ~200-byte card against
// the vCard dictionary and expanding it (core/card_compression.hpp; the
// counter is the stored share of the card's bytes), AES-256-GCM of a card
// bound to its account (core::keyring::seal / open), and a line id
// (lookup_hash), and a book's sealed cards made into records as an upload
// hands them to the store (core::encode_live_record).
// Run: core_seal_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "core/card_compression.hpp"
#include "core/keyring.hpp"
#include "core/record.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

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

// A card as phones write them; none of its values is in the dictionary.
const std::string typical_card =
    "BEGIN:VCARD\r\nVERSION:3.0\r\n"
    "UID:0000b3f5-1c82-4959-a5e6-000000006f97\r\n"
    "N:Okafor;Fatima;;;\r\nFN:Fatima Okafor\r\n"
    "TEL;TYPE=CELL:+72 336 616 7688\r\n"
    "EMAIL;TYPE=INTERNET:fatima.okafor40@mail.example\r\n"
    "ORG:Acme Logistics\r\nTITLE:Dispatcher\r\nEND:VCARD\r\n";

void compress_card(benchmark::State& state) {
  std::size_t stored = 0;
  for (auto _ : state) {
    auto out = simsync::core::compress_card(typical_card);
    stored = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["stored_share"] =
      static_cast<double>(stored) / static_cast<double>(typical_card.size());
}
BENCHMARK(compress_card);

void expand_card(benchmark::State& state) {
  auto stored = simsync::core::compress_card(typical_card);
  for (auto _ : state)
    benchmark::DoNotOptimize(simsync::core::expand_card(stored));
}
BENCHMARK(expand_card);

void line_id(benchmark::State& state) {
  auto keys = ring();
  for (auto _ : state)
    benchmark::DoNotOptimize(keys.lookup_hash("msisdn", "+8613800138000"));
}
BENCHMARK(line_id);

// A book of 50,000 sealed cards made into the records an upload stores,
// all kept until the last is made (as upload_call keeps them).
void book_records(benchmark::State& state) {
  auto keys = ring();
  auto sealed = keys.seal(simsync::core::compress_card(typical_card), account);
  auto hash = simsync::core::content_hash::of(typical_card);
  const std::size_t cards = 50'000;
  for (auto _ : state) {
    std::vector<std::string> records(cards);
    for (auto& record : records)
      record = simsync::core::encode_live_record(
          1700000000000000000ULL, hash, "carrier-a", "kftU7eZWHcYEpVu8SwPpag", sealed);
    benchmark::DoNotOptimize(records.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * cards));
}
BENCHMARK(book_records)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
