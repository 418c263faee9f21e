#include "store/origin_numbers.hpp"

#include "core/record.hpp"

#include <algorithm>

namespace simsync::store {

const std::string& origin_numbering::number_for(std::string_view origin) {
  // A batch's records mostly come from one line: few origins, searched in
  // place.
  for (const auto& [text, number] : numbers_)
    if (text == origin)
      return number;
  static const std::string written_out;
  if (numbers_.size() == origins_numbered)
    return written_out;
  auto parts = core::split_origin(origin);
  auto number = core::origin_number(parts.carrier, parts.line);
  bool taken = std::any_of(numbers_.begin(), numbers_.end(),
                           [&](const auto& known) { return known.second == number; });
  if (taken)
    number.clear();
  else {
    claimed_.push_back(number);
    claimed_.emplace_back(origin);
  }
  numbers_.emplace_back(std::string(origin), std::move(number));
  return numbers_.back().second;
}

void origin_numbering::append(std::string& out, std::string_view record,
                              std::string_view origin) {
  const auto& number = number_for(origin);
  if (number.empty() || !core::append_numbered_head(out, record, number)) {
    out.append(record);
    return;
  }
  out.append(record.substr(core::record_body_at(record)));
}

} // namespace simsync::store
