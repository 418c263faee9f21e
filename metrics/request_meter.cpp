#include "metrics/request_meter.hpp"

namespace simsync::metrics {

const char* to_string(shed_reason why) {
  return why == shed_reason::in_flight ? "in_flight" : "replication_behind";
}

bool request_meter::admit(std::size_t limit) {
  if (in_flight_.fetch_add(1, std::memory_order_relaxed) >= limit) {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    shed(shed_reason::in_flight);
    return false;
  }
  return true;
}

void request_meter::answered(std::string_view route, int status,
                             std::chrono::nanoseconds took) {
  in_flight_.fetch_sub(1, std::memory_order_relaxed);
  if (!measured_)
    return;
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = routes_.find(route);
  if (it == routes_.end())
    it = routes_.emplace(std::string{route}, route_sample{std::string{route}, {}, {}})
             .first;
  ++it->second.answers[status];
  it->second.latency.record(took);
}

void request_meter::store_call(std::chrono::nanoseconds took, const std::string* error) {
  if (!measured_)
    return;
  std::lock_guard<std::mutex> guard{mutex_};
  ++store_calls_;
  if (error)
    store_error_ = *error;
  store_latency_.record(took);
}

request_meter::sample request_meter::take() const {
  sample out;
  for (auto why : shed_reasons)
    out.shed[static_cast<std::size_t>(why)] =
        shed_[static_cast<std::size_t>(why)].load(std::memory_order_relaxed);
  out.in_flight = in_flight_.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> guard{mutex_};
  for (const auto& [name, route] : routes_)
    out.routes.push_back(route);
  if (store_calls_ > 0) {
    actor_status st;
    st.name = "gateway/local_store";
    st.kind = "local_store";
    st.processed = store_calls_;
    st.last_error = store_error_;
    st.latency_counts = store_latency_.counts();
    st.latency_sum_us = store_latency_.sum_us();
    out.store.push_back(std::move(st));
  }
  return out;
}

} // namespace simsync::metrics
