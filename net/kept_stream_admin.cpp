#include "net/kept_stream_admin.hpp"

#include "net/request_fields.hpp"
#include "store/operator_streams.hpp"

#include <charconv>
#include <string>

namespace simsync::net {

std::optional<std::uint64_t> list_limit(const exchange_ptr& ex) {
  constexpr std::uint64_t default_limit = 100;
  constexpr std::uint64_t most = store::kept_for_operator;
  auto query = query_of(ex);
  if (!query)
    return std::nullopt;
  if (!query->has("limit"))
    return default_limit;
  auto text = (*query)["limit"];
  std::uint64_t limit = 0;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), limit);
  if (err != std::errc{} || end != text.data() + text.size() || limit < 1 ||
      limit > most) {
    ex->fail(bad_field("limit", "must be 1 to " + std::to_string(most)));
    return std::nullopt;
  }
  return limit;
}

} // namespace simsync::net
