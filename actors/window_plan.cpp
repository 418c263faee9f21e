#include "actors/window_plan.hpp"

#include <algorithm>
#include <iterator>

namespace simsync {

window_plan
plan_window(std::vector<store::outbox_entry> entries, std::size_t node_count,
            const std::function<std::size_t(const std::string& idcode)>& node_of,
            const window_limits& limits) {
  window_plan plan;
  plan.requests_by_node.resize(node_count);
  std::size_t kept = 0;
  std::size_t bytes = 0;
  while (kept < entries.size() && (kept == 0 || bytes < limits.window_bytes))
    bytes += entries[kept++].batch.size();
  plan.unsent.assign(std::make_move_iterator(entries.begin() + kept),
                     std::make_move_iterator(entries.end()));
  entries.resize(kept);
  if (entries.empty())
    return plan;
  plan.first_id = entries.front().id;
  plan.last_id = entries.back().id;
  plan.bytes = bytes;
  std::vector<std::size_t> request_size(node_count, 0); // of each node's last request
  for (auto& e : entries) {
    if (e.kind == store::outbox_kind::batch && e.batch.empty()) {
      ++plan.nothing_to_send; // its cards' account was removed since
      continue;
    }
    auto node = node_of(e.idcode);
    auto& requests = plan.requests_by_node[node];
    auto& size = request_size[node];
    if (requests.empty() || size + e.batch.size() > limits.request_bytes) {
      requests.emplace_back();
      size = 0;
    }
    size += e.batch.size();
    requests.back().push_back(std::move(e));
  }
  return plan;
}

std::size_t next_read_count(const std::vector<store::outbox_entry>& read,
                            const window_limits& limits) {
  if (read.empty())
    return 1;
  std::size_t read_bytes = 0;
  for (const auto& e : read)
    read_bytes += e.batch.size() + e.idcode.size();
  auto average = std::max<std::size_t>(1, read_bytes / read.size());
  return std::clamp<std::size_t>(limits.window_bytes / average, 1, limits.window);
}

} // namespace simsync
