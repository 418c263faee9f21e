#include "core/record.hpp"

#include "core/record_layout.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <tuple>

namespace simsync::core {

namespace {

using record_layout::flag_at;
using record_layout::hash_at;
using record_layout::hash_digits;
using record_layout::hlc_digits;
using record_layout::origin_at;
using record_layout::separator;
static_assert(
    hash_digits == 2 * sizeof(content_hash::hi) + 2 * sizeof(content_hash::lo),
    "store/contract/record.list: hash_digits must be content_hash::hex()'s length");

/// The HLC zero padded to its fixed width.
void append_hlc(std::string& out, std::uint64_t hlc) {
  char text[hlc_digits + 1];
  std::snprintf(text, sizeof text, "%0*llu", static_cast<int>(hlc_digits),
                static_cast<unsigned long long>(hlc));
  out.append(text, hlc_digits);
}

void append_stamp(std::string& out, const stamp& st) {
  append_hlc(out, st.hlc);
  out += separator;
  out += st.carrier;
  out += separator;
  out += st.line;
}

bool all_digits(std::string_view text) {
  for (unsigned char c : text)
    if (!std::isdigit(c))
      return false;
  return true;
}

bool all_hex(std::string_view text) {
  for (unsigned char c : text)
    if (!std::isxdigit(c))
      return false;
  return true;
}

/// The HLC (hlc_digits digits) at the start of `text`, read; nullopt unless it is there.
std::optional<std::uint64_t> leading_hlc(std::string_view text) {
  if (text.size() < hlc_digits || !all_digits(text.substr(0, hlc_digits)))
    return std::nullopt;
  std::uint64_t hlc = 0;
  std::from_chars(text.data(), text.data() + hlc_digits, hlc);
  return hlc;
}

/// Parses append_stamp's text.
bool parse_stamp(std::string_view text, stamp& st) {
  auto hlc = leading_hlc(text);
  if (!hlc || text.size() < hlc_digits + 1 || text[hlc_digits] != separator)
    return false;
  st.hlc = *hlc;
  text = text.substr(hlc_digits + 1);
  auto bar = text.find(separator);
  if (bar == std::string_view::npos)
    return false;
  st.carrier.assign(text.substr(0, bar));
  st.line.assign(text.substr(bar + 1));
  return true;
}

/// A record's place in the order of supersedes(): (stamp, rank, own stamp).
std::tuple<const stamp&, int, const stamp&> order_key(const stamped_card& r) {
  if (r.deleted)
    return {r.removes, 1, r.st};
  return {r.st, 0, r.st};
}

} // namespace

bool supersedes(const stamped_card& a, const stamped_card& b) {
  return order_key(b) < order_key(a);
}

namespace {

/// A record's head, HLC|HASH|L or D|carrier|line|, in a string with room for
/// `body_size` bytes more.
std::string record_head(std::uint64_t hlc, const content_hash& hash, bool deleted,
                        std::string_view carrier, std::string_view line,
                        std::size_t body_size) {
  std::string out;
  // "HLC|HASH|L|carrier|line|": five separators and the flag around the
  // parts, so that the record is made in one allocation (the body is
  // appended after).
  out.reserve(origin_at + carrier.size() + line.size() + 2 + body_size);
  append_hlc(out, hlc);
  out += separator;
  out += hash.hex();
  out += separator;
  out += deleted ? record_layout::tombstone : record_layout::live;
  out += separator;
  out += carrier;
  out += separator;
  out += line;
  out += separator;
  return out;
}

} // namespace

std::string encode_record(const stamped_card& rec) {
  if (!rec.deleted)
    return encode_live_record(rec.st.hlc, rec.hash, rec.st.carrier, rec.st.line,
                              rec.card);
  auto out =
      record_head(rec.st.hlc, rec.hash, true, rec.st.carrier, rec.st.line,
                  hlc_digits + 2 + rec.removes.carrier.size() + rec.removes.line.size());
  append_stamp(out, rec.removes);
  return out;
}

std::string encode_live_record(std::uint64_t hlc, const content_hash& hash,
                               std::string_view carrier, std::string_view line,
                               std::string_view card) {
  auto out = record_head(hlc, hash, false, carrier, line, card.size());
  out += card;
  return out;
}

std::size_t record_body_at(std::string_view bytes) {
  constexpr auto none = std::string_view::npos;
  if (bytes.size() < origin_at || bytes[hlc_digits] != separator ||
      bytes[flag_at - 1] != separator || bytes[flag_at + 1] != separator)
    return none;
  auto carrier_end = bytes.find(separator, origin_at);
  if (carrier_end == none)
    return none;
  auto line_end = bytes.find(separator, carrier_end + 1);
  return line_end == none ? none : line_end + 1;
}

std::string_view record_origin(std::string_view record) {
  return record.substr(origin_at, record_body_at(record) - 1 - origin_at);
}

origin_parts split_origin(std::string_view origin) {
  auto bar = origin.find(separator);
  if (bar == std::string_view::npos)
    return {origin, {}};
  return {origin.substr(0, bar), origin.substr(bar + 1)};
}

bool record_is_tombstone(std::string_view record) {
  return record[flag_at] == record_layout::tombstone;
}

std::optional<std::uint64_t> checked_record_hlc(std::string_view bytes) {
  if (bytes.size() < origin_at || bytes[hlc_digits] != separator ||
      bytes[flag_at - 1] != separator || bytes[flag_at + 1] != separator ||
      (bytes[flag_at] != record_layout::live &&
       bytes[flag_at] != record_layout::tombstone) ||
      !all_hex(bytes.substr(hash_at, hash_digits)))
    return std::nullopt;
  auto hlc = leading_hlc(bytes);
  auto carrier_end = bytes.find(separator, origin_at);
  auto line_end = carrier_end == std::string_view::npos
                      ? std::string_view::npos
                      : bytes.find(separator, carrier_end + 1);
  if (!hlc || line_end == std::string_view::npos)
    return std::nullopt;
  auto removed = bytes.substr(line_end + 1);
  if (bytes[flag_at] == record_layout::live || removed.empty())
    return hlc;
  auto bar = removed.find(separator, hlc_digits + 1);
  if (!leading_hlc(removed) || removed.size() == hlc_digits ||
      removed[hlc_digits] != separator || bar == std::string_view::npos ||
      removed.find(separator, bar + 1) != std::string_view::npos)
    return std::nullopt;
  return hlc;
}

std::optional<stamped_card> decode_record(std::string_view bytes) {
  stamped_card rec;
  if (!decode_record(bytes, rec))
    return std::nullopt;
  return rec;
}

bool decode_record(std::string_view bytes, stamped_card& rec) {
  // The form first (checked_record_hlc), then its parts are read as it found them.
  auto hlc = checked_record_hlc(bytes);
  if (!hlc || !content_hash::from_hex(bytes.substr(hash_at, hash_digits), &rec.hash))
    return false;
  rec.st.hlc = *hlc;
  rec.deleted = bytes[flag_at] == record_layout::tombstone;
  auto rest = bytes.substr(origin_at);
  auto bar = rest.find(separator);
  rec.st.carrier.assign(rest.substr(0, bar));
  rest = rest.substr(bar + 1);
  bar = rest.find(separator);
  rec.st.line.assign(rest.substr(0, bar));
  rest = rest.substr(bar + 1);
  if (!rec.deleted) {
    rec.card.assign(rest);
    rec.removes.hlc = 0;
    rec.removes.carrier.clear();
    rec.removes.line.clear();
    return true;
  }
  rec.card.clear();
  if (rest.empty()) {
    rec.removes = rec.st; // written before tombstones named what they remove
    return true;
  }
  return parse_stamp(rest, rec.removes);
}

} // namespace simsync::core
