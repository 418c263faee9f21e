#include "core/record.hpp"

#include "core/big_endian.hpp"
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

using record_layout::compact_hash_at;
using record_layout::compact_hlc_at;
using record_layout::compact_origin_at;
using record_layout::hash_bytes;
using record_layout::hlc_bytes;
using record_layout::numbered_body_at;
using record_layout::origin_number_bytes;
using record_layout::origin_number_mark;
static_assert(hlc_bytes == 8 && hash_bytes == 2 * sizeof(std::uint64_t),
              "store/contract/record.list: the compact form holds the HLC and the hash "
              "as 64-bit numbers");

/// The largest HLC the text form writes (hlc_digits nines), and the bound
/// below which the compact form is written: the scripts read its HLC as a
/// double (store/contract/record.list).
constexpr std::uint64_t largest_text_hlc = 9'999'999'999'999'999;
static_assert(hlc_digits == 16, "largest_text_hlc is written for 16 digits");
constexpr std::uint64_t compact_hlc_bound = std::uint64_t{1} << 53;

/// The form a record stamped `hlc` is kept in.
record_form kept_form(std::uint64_t hlc) {
  return hlc < compact_hlc_bound ? record_form::compact : record_form::text;
}

/// Appends a record's head in `form`: the stamp's HLC, the hash and the flag
/// (in the compact form the flag first), then the origin and the separator
/// before the body, or in the compact form the origin's `number` if one is
/// given.
void append_head(std::string& out, record_form form, std::uint64_t hlc,
                 const content_hash& hash, bool deleted, std::string_view carrier,
                 std::string_view line, std::string_view number = {}) {
  const char flag = deleted ? record_layout::tombstone : record_layout::live;
  if (form == record_form::compact) {
    out += flag;
    append_big_endian(out, hlc);
    hash.append_bytes(out);
    if (!number.empty()) {
      out += origin_number_mark;
      out += number;
      return;
    }
  } else {
    append_hlc(out, hlc);
    out += separator;
    out += hash.hex();
    out += separator;
    out += flag;
    out += separator;
  }
  out += carrier;
  out += separator;
  out += line;
  out += separator;
}

/// The bytes a head in `form` takes before its origin.
std::size_t head_size(record_form form) {
  return form == record_form::compact ? compact_origin_at : origin_at;
}

/// Where the parts of a record's head are, in either form.
struct head_places {
  record_form form;
  std::size_t flag;        ///< the flag's byte
  std::size_t origin;      ///< where the carrier starts, or the origin's number
  std::size_t carrier_end; ///< the separator after the carrier (0 if numbered)
  std::size_t body;        ///< where the body starts
  bool numbered;           ///< whether the origin is its number
};

/// The places of the head `bytes` begin with; nullopt unless its fixed part
/// and the two separators after the origin's parts (or its number) are
/// there. Nothing in it is checked further.
std::optional<head_places> find_head(std::string_view bytes) {
  head_places h{};
  if (form_of(bytes) == record_form::compact) {
    if (bytes.size() < compact_origin_at)
      return std::nullopt;
    if (bytes.size() > compact_origin_at &&
        bytes[compact_origin_at] == origin_number_mark) {
      if (bytes.size() < numbered_body_at)
        return std::nullopt;
      return head_places{record_form::compact, 0,   compact_origin_at + 1, 0,
                         numbered_body_at,     true};
    }
    h = {record_form::compact, 0, compact_origin_at, 0, 0, false};
  } else {
    if (bytes.size() < origin_at || bytes[hlc_digits] != separator ||
        bytes[flag_at - 1] != separator || bytes[flag_at + 1] != separator)
      return std::nullopt;
    h = {record_form::text, flag_at, origin_at, 0, 0, false};
  }
  h.carrier_end = bytes.find(separator, h.origin);
  if (h.carrier_end == std::string_view::npos)
    return std::nullopt;
  auto line_end = bytes.find(separator, h.carrier_end + 1);
  if (line_end == std::string_view::npos)
    return std::nullopt;
  h.body = line_end + 1;
  return h;
}

/// A head found and checked: its flag live or tombstone, its hash hex
/// digits (text form), its HLC one the text form writes, its carrier not
/// starting with the origin number's mark, and its origin a number only if
/// `numbered` allows one.
struct checked_head {
  head_places at;
  std::uint64_t hlc;
};

enum class numbered_origin { refused, allowed };

std::optional<checked_head> check_head(std::string_view bytes, numbered_origin numbered) {
  auto h = find_head(bytes);
  if (!h || (bytes[h->flag] != record_layout::live &&
             bytes[h->flag] != record_layout::tombstone))
    return std::nullopt;
  if (h->numbered ? numbered == numbered_origin::refused
                  : h->carrier_end > h->origin && bytes[h->origin] == origin_number_mark)
    return std::nullopt;
  if (h->form == record_form::compact) {
    auto hlc = read_big_endian(bytes.substr(compact_hlc_at));
    if (hlc > largest_text_hlc)
      return std::nullopt;
    return checked_head{*h, hlc};
  }
  auto hlc = leading_hlc(bytes);
  if (!hlc || !all_hex(bytes.substr(hash_at, hash_digits)))
    return std::nullopt;
  return checked_head{*h, *hlc};
}

/// The hash of a checked head.
content_hash head_hash(std::string_view bytes, const head_places& at) {
  if (at.form == record_form::compact)
    return content_hash::from_bytes(bytes.substr(compact_hash_at, hash_bytes));
  content_hash hash;
  content_hash::from_hex(bytes.substr(hash_at, hash_digits), &hash);
  return hash;
}

/// The origin's text, "carrier|line": as the head writes it, or as `names`
/// name its number (nullopt if they do not).
std::optional<std::string_view> origin_of(std::string_view bytes, const head_places& at,
                                          const origin_names* names) {
  if (!at.numbered)
    return bytes.substr(at.origin, at.body - 1 - at.origin);
  if (!names)
    return std::nullopt;
  auto named = names->find(std::string(bytes.substr(at.origin, origin_number_bytes)));
  if (named == names->end())
    return std::nullopt;
  return std::string_view(named->second);
}

} // namespace

std::string encode_record(const stamped_card& rec) {
  if (!rec.deleted)
    return encode_live_record(rec.st.hlc, rec.hash, rec.st.carrier, rec.st.line,
                              rec.card);
  auto form = kept_form(rec.st.hlc);
  std::string out;
  out.reserve(head_size(form) + rec.st.carrier.size() + rec.st.line.size() + 2 +
              hlc_digits + 2 + rec.removes.carrier.size() + rec.removes.line.size());
  append_head(out, form, rec.st.hlc, rec.hash, true, rec.st.carrier, rec.st.line);
  append_stamp(out, rec.removes);
  return out;
}

std::string origin_number(std::string_view carrier, std::string_view line) {
  std::string text;
  text.reserve(carrier.size() + 1 + line.size());
  text.append(carrier).append(1, separator).append(line);
  return content_hash::of(text).bytes().substr(0, origin_number_bytes);
}

std::string encode_live_record(std::uint64_t hlc, const content_hash& hash,
                               std::string_view carrier, std::string_view line,
                               std::string_view card, std::string_view number) {
  auto form = kept_form(hlc);
  std::string out;
  // One allocation for the whole record: the head, then the card.
  out.reserve(head_size(form) + carrier.size() + line.size() + 2 + card.size());
  append_head(out, form, hlc, hash, false, carrier, line, number);
  out += card;
  return out;
}

record_form form_of(std::string_view record) {
  // A compact record starts with its flag, a text record with a digit.
  return !record.empty() && (record[0] == record_layout::live ||
                             record[0] == record_layout::tombstone)
             ? record_form::compact
             : record_form::text;
}

bool append_record_head(std::string& out, std::string_view record, record_form form,
                        const origin_names* names) {
  auto head = check_head(record, numbered_origin::allowed);
  if (!head)
    return false;
  auto origin = origin_of(record, head->at, names);
  if (!origin)
    return false;
  if (form == record_form::compact)
    form = kept_form(head->hlc);
  auto parts = split_origin(*origin);
  append_head(out, form, head->hlc, head_hash(record, head->at),
              record[head->at.flag] == record_layout::tombstone, parts.carrier,
              parts.line);
  return true;
}

bool append_record_written_out(std::string& out, std::string_view record,
                               const origin_names* names) {
  auto h = find_head(record);
  if (!h)
    return false;
  if (!h->numbered) {
    out.append(record);
    return true;
  }
  // Only the origin changes: the head before it and the body are copied.
  auto origin = origin_of(record, *h, names);
  if (!origin)
    return false;
  out.append(record.substr(0, compact_origin_at));
  out.append(*origin);
  out += separator;
  out.append(record.substr(h->body));
  return true;
}

bool append_numbered_head(std::string& out, std::string_view record,
                          std::string_view number) {
  // What the store seals is compact: its head before the origin is copied.
  if (auto h = find_head(record); h && h->form == record_form::compact && !h->numbered) {
    out.append(record.substr(0, compact_origin_at));
    out += origin_number_mark;
    out.append(number);
    return true;
  }
  auto head = check_head(record, numbered_origin::refused);
  if (!head)
    return false;
  auto parts = split_origin(origin_of(record, head->at, nullptr).value());
  append_head(out, kept_form(head->hlc), head->hlc, head_hash(record, head->at),
              record[head->at.flag] == record_layout::tombstone, parts.carrier,
              parts.line, number);
  return true;
}

std::size_t record_body_at(std::string_view bytes) {
  auto h = find_head(bytes);
  return h ? h->body : std::string_view::npos;
}

std::string_view record_origin(std::string_view record) {
  return origin_of(record, *find_head(record), nullptr).value_or(std::string_view{});
}

std::string_view record_origin_number(std::string_view record) {
  auto at = *find_head(record);
  return at.numbered ? record.substr(at.origin, origin_number_bytes) : std::string_view{};
}

origin_parts split_origin(std::string_view origin) {
  auto bar = origin.find(separator);
  if (bar == std::string_view::npos)
    return {origin, {}};
  return {origin.substr(0, bar), origin.substr(bar + 1)};
}

bool record_is_tombstone(std::string_view record) {
  auto flag = form_of(record) == record_form::compact ? 0 : flag_at;
  return record[flag] == record_layout::tombstone;
}

namespace {

/// check_head(), and a tombstone's body checked as the stamp it removes:
/// the whole of checked_record_hlc()'s rules, with the places found.
std::optional<checked_head> check_record(std::string_view bytes,
                                         numbered_origin numbered) {
  auto head = check_head(bytes, numbered);
  if (!head)
    return std::nullopt;
  auto removed = bytes.substr(head->at.body);
  if (bytes[head->at.flag] == record_layout::live || removed.empty())
    return head;
  auto bar = removed.find(separator, hlc_digits + 1);
  if (!leading_hlc(removed) || removed.size() == hlc_digits ||
      removed[hlc_digits] != separator || bar == std::string_view::npos ||
      removed.find(separator, bar + 1) != std::string_view::npos)
    return std::nullopt;
  return head;
}

} // namespace

std::optional<std::uint64_t> checked_record_hlc(std::string_view bytes) {
  auto record = check_record(bytes, numbered_origin::refused);
  if (!record)
    return std::nullopt;
  return record->hlc;
}

std::optional<stamped_card> decode_record(std::string_view bytes,
                                          const origin_names* names) {
  stamped_card rec;
  if (!decode_record(bytes, rec, names))
    return std::nullopt;
  return rec;
}

bool decode_record(std::string_view bytes, stamped_card& rec, const origin_names* names) {
  // The form first (check_record), then its parts are read where it found them.
  auto checked = check_record(bytes, numbered_origin::allowed);
  if (!checked)
    return false;
  const auto& at = checked->at;
  auto origin = origin_of(bytes, at, names);
  if (!origin)
    return false;
  auto parts = split_origin(*origin);
  rec.hash = head_hash(bytes, at);
  rec.st.hlc = checked->hlc;
  rec.deleted = bytes[at.flag] == record_layout::tombstone;
  rec.st.carrier.assign(parts.carrier);
  rec.st.line.assign(parts.line);
  auto rest = bytes.substr(at.body);
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
