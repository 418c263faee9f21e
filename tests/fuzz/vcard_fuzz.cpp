// The vCard codec, on any bytes a phone could send: every version and
// transfer encoding and charset path of the reader, then, for each card it
// read, the canonical hash and both serializations read back. What simsync
// writes for a phone it must read again as the same card (same content
// hash): otherwise a book served and uploaded back would change by itself.

#include "core/canonical.hpp"
#include "core/vcard.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace simsync;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const auto& block : core::parse_vcards(fuzz::text_of(data, size))) {
    if (!block.ok())
      continue;
    auto hash = core::canonical_hash(block.card);
    for (auto version : {core::vcard_version::v3_0, core::vcard_version::v4_0}) {
      auto written = core::serialize(block.card, version);
      auto again = core::parse_vcards(written);
      fuzz::require(again.size() == 1 && again[0].ok(),
                    "a serialized card reads back as one card");
      fuzz::require(core::canonical_hash(again[0].card) == hash,
                    "a serialized card keeps its content hash");
    }
  }
  return 0;
}
