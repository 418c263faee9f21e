// The stored-record parsers, on any bytes a store could hold (a damaged AOF,
// a record from an older build, a hostile writer with access to Redis):
// records (core/record.hpp), their sealed cards (store/sealed_records.hpp)
// and netstring lists. Whatever the input: no crash, and what parses writes
// back the same and seals and opens back to itself.

#include "core/card_compression.hpp"
#include "core/record.hpp"
#include "store/netstrings.hpp"
#include "store/sealed_records.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace simsync;

namespace {

constexpr std::string_view account = "fuzz-account";

/// `record` (one that parses) with its head in `form`.
std::string in_form(std::string_view record, core::record_form form) {
  std::string out;
  fuzz::require(core::append_record_head(out, record, form),
                "a record that parses is written in either form");
  out += record.substr(core::record_body_at(record));
  return out;
}

/// Two stamped cards the same in every part.
bool same_card(const core::stamped_card& a, const core::stamped_card& b) {
  return a.st == b.st && a.deleted == b.deleted && a.hash == b.hash && a.card == b.card &&
         a.removes == b.removes;
}

void record(std::string_view bytes) {
  auto rec = core::decode_record(bytes);
  if (!rec) {
    store::open_record(fuzz::keys(), bytes, account);
    return;
  }
  fuzz::require(core::record_body_at(bytes) != std::string_view::npos,
                "a record that parses has a body");
  auto written = core::encode_record(*rec);
  auto again = core::decode_record(written);
  fuzz::require(again && core::encode_record(*again) == written,
                "a record written back parses to itself");
  for (auto form : {core::record_form::text, core::record_form::compact}) {
    auto other = core::decode_record(in_form(bytes, form));
    fuzz::require(other && same_card(*other, *rec),
                  "a record reads the same in either form");
  }
  // Its origin as its number: read through the account's table of origins
  // as it was, and written out again as it was.
  auto number = core::origin_number(rec->st.carrier, rec->st.line);
  std::string numbered;
  fuzz::require(core::append_numbered_head(numbered, written, number),
                "a record that parses takes its origin's number");
  numbered += written.substr(core::record_body_at(written));
  const core::origin_names names{{number, rec->st.carrier + "|" + rec->st.line}};
  auto through_table = core::decode_record(numbered, &names);
  fuzz::require(through_table && same_card(*through_table, *rec),
                "a numbered record reads the same through its table of origins");
  std::string written_out;
  fuzz::require(core::append_record_written_out(written_out, numbered, &names) &&
                    written_out == written,
                "a numbered record written out is the record it was");
  if (auto sealed = store::seal_record(fuzz::keys(), written, account)) {
    // A compressed card is sealed as it came (a peer's, checked before), any
    // other compressed first.
    if (core::is_compressed_card(written.substr(core::record_body_at(written)))) {
      auto unsealed = store::unseal_record(fuzz::keys(), *sealed, account);
      fuzz::require(unsealed && *unsealed == in_form(written, core::record_form::text),
                    "a sealed record with a compressed card unseals to itself, in the "
                    "text form");
    } else {
      auto opened = store::open_record(fuzz::keys(), *sealed, account);
      fuzz::require(opened && *opened == written, "a sealed record opens to itself");
    }
  }
}

void netstrings(std::string_view text) {
  auto items = store::split_netstrings(text);
  if (!items)
    return;
  std::string joined;
  for (const auto& item : *items)
    store::append_netstring(joined, item);
  fuzz::require(joined == text, "netstrings join back to what they were split from");
  if (auto sealed_list = store::sealed_items(fuzz::keys(), text, account)) {
    std::string sealed;
    for (const auto& item : *sealed_list)
      store::append_netstring(sealed, item);
    auto unsealed = store::unseal_batch(fuzz::keys(), sealed, account);
    fuzz::require(unsealed.has_value(), "a sealed batch unseals");
    if (text.find(core::compressed_card_mark) == std::string_view::npos) {
      std::string sent; // what leaves for a peer: every record in the text form
      for (std::size_t i = 0; i < items->size(); i += 2) {
        store::append_netstring(sent, (*items)[i]);
        store::append_netstring(sent, in_form((*items)[i + 1], core::record_form::text));
      }
      auto opened = store::expand_batch(*unsealed);
      fuzz::require(opened && *opened == sent,
                    "a sealed batch opens to itself, in the text form");
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  auto bytes = fuzz::text_of(data + 1, size - 1);
  if (data[0] % 2 == 0)
    record(bytes);
  else
    netstrings(bytes);
  return 0;
}
