#include "core/record.hpp"

#include <charconv>
#include <cstdio>

namespace simsync::core {

namespace {
constexpr std::size_t hlc_width = 16;
constexpr std::size_t hash_width = 32;
} // namespace

std::string encode_record(const stamped_card& rec) {
  char head[hlc_width + 1];
  std::snprintf(head, sizeof head, "%016llu",
                static_cast<unsigned long long>(rec.st.hlc));
  std::string out;
  out.reserve(hlc_width + hash_width + 5 + rec.st.carrier.size() + rec.st.line.size() +
              rec.card.size());
  out.append(head, hlc_width);
  out += '|';
  out += rec.hash.hex();
  out += '|';
  out += rec.deleted ? 'D' : 'L';
  out += '|';
  out += rec.st.carrier;
  out += '|';
  out += rec.st.line;
  out += '|';
  out += rec.card;
  return out;
}

std::optional<stamped_card> decode_record(std::string_view bytes) {
  constexpr std::size_t flag_at = hlc_width + 1 + hash_width + 1;
  if (bytes.size() < flag_at + 2 || bytes[hlc_width] != '|' ||
      bytes[hlc_width + 1 + hash_width] != '|' || bytes[flag_at + 1] != '|')
    return std::nullopt;
  stamped_card rec;
  auto [end, err] = std::from_chars(bytes.data(), bytes.data() + hlc_width, rec.st.hlc);
  if (err != std::errc{} || end != bytes.data() + hlc_width)
    return std::nullopt;
  if (!content_hash::from_hex(bytes.substr(hlc_width + 1, hash_width), &rec.hash))
    return std::nullopt;
  char flag = bytes[flag_at];
  if (flag != 'L' && flag != 'D')
    return std::nullopt;
  rec.deleted = flag == 'D';
  auto rest = bytes.substr(flag_at + 2);
  auto bar = rest.find('|');
  if (bar == std::string_view::npos)
    return std::nullopt;
  rec.st.carrier = std::string(rest.substr(0, bar));
  rest = rest.substr(bar + 1);
  bar = rest.find('|');
  if (bar == std::string_view::npos)
    return std::nullopt;
  rec.st.line = std::string(rest.substr(0, bar));
  rec.card = std::string(rest.substr(bar + 1));
  return rec;
}

} // namespace simsync::core
