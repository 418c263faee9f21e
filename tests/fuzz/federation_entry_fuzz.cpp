// What a node checks in every entry a peer carrier delivers
// (actors/incoming_entries.hpp), on any entry a hostile or broken peer could
// send. The first byte picks the kind and whether the account is a
// well-formed idcode (else the next 64 bytes are the idcode); the rest is the
// batch. Whatever the input: no crash, and an entry the check lets through
// is one the store can take: its batch seals (what apply_incoming does
// next), every record in it parses and passes the store's own check, and every card,
// compressed by the peer or not, opens within the card limit.

#include "actors/incoming_entries.hpp"
#include "core/record.hpp"
#include "store/netstrings.hpp"
#include "store/sealed_records.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace simsync;

namespace {

// 2026-12-01, so stamps of the seeds are in the past and not too far ahead.
constexpr std::uint64_t now_ms = 1'796'083'200'000;
const std::string well_formed_idcode(64, 'a');

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  auto rest = fuzz::text_of(data + 1, size - 1);
  store::outbox_entry entry;
  entry.id = "1-0";
  entry.kind = static_cast<store::outbox_kind>(data[0] % 4);
  if (data[0] & 0x80) {
    entry.idcode = std::string(rest.substr(0, 64));
    rest.remove_prefix(std::min<std::size_t>(64, rest.size()));
  } else {
    entry.idcode = well_formed_idcode;
  }
  entry.batch = std::string(rest);
  entry_limits limits;
  limits.max_card_bytes = 4096;
  if (!entry_refusal(entry, now_ms, limits).empty())
    return 0;
  if (entry.kind != store::outbox_kind::batch)
    return 0;
  auto sealed = store::sealed_items(fuzz::keys(), entry.batch, entry.idcode);
  fuzz::require(sealed.has_value(), "an accepted batch seals");
  auto items = store::split_netstrings(entry.batch);
  fuzz::require(items && items->size() % 2 == 0,
                "an accepted batch is uid, record pairs");
  for (std::size_t i = 1; i < items->size(); i += 2) {
    fuzz::require(core::decode_record((*items)[i]).has_value(),
                  "every record of an accepted batch parses");
    // The store's own check before it applies (account_store::apply_incoming)
    // takes it too, sealed as the store keeps it.
    fuzz::require(core::checked_record_hlc((*sealed)[i]).has_value(),
                  "every record of an accepted batch is one the store applies");
    // Stored as sealed, its card (compressed by the peer or here) reads back
    // within the limit.
    auto opened = store::open_record(fuzz::keys(), (*sealed)[i], entry.idcode);
    fuzz::require(opened.has_value(), "every record of an accepted batch opens");
    auto record = core::decode_record(*opened);
    fuzz::require(record && record->card.size() <= limits.max_card_bytes,
                  "every card of an accepted batch opens within the card limit");
  }
  return 0;
}
