#include "net/kept_stream_admin.hpp"

#include "net/request_fields.hpp"
#include "store/operator_streams.hpp"

namespace simsync::net {

std::optional<std::uint64_t> list_limit(const exchange_ptr& ex) {
  auto query = query_of(ex);
  if (!query)
    return std::nullopt;
  return count_param(ex, *query, "limit", 100, 1, store::kept_for_operator);
}

} // namespace simsync::net
