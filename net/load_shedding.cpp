#include "net/load_shedding.hpp"

#include "logging/log.hpp"

namespace simsync::net {

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

load_shedding::load_shedding(std::shared_ptr<metrics::request_meter> meter)
    : meter_(std::move(meter)) {}

bool load_shedding::admit(std::size_t limit) {
  if (!meter_->admit(limit)) { // counted there
    note(metrics::shed_reason::in_flight);
    return false;
  }
  // The common case is one relaxed load: nothing was being shed.
  if (shedding_.load(std::memory_order_relaxed) &&
      now_ns() - last_shed_ns_.load(std::memory_order_relaxed) >
          std::chrono::nanoseconds{quiet}.count() &&
      shedding_.exchange(false)) {
    logging::info("shedding_stopped", {{"shed", shed_in_spell_.exchange(0)}});
  }
  return true;
}

void load_shedding::shed(metrics::shed_reason why) {
  meter_->shed(why);
  note(why);
}

void load_shedding::note(metrics::shed_reason why) {
  last_shed_ns_.store(now_ns(), std::memory_order_relaxed);
  shed_in_spell_.fetch_add(1, std::memory_order_relaxed);
  if (!shedding_.exchange(true))
    logging::warn("shedding_started", {{"reason", metrics::to_string(why)}});
}

} // namespace simsync::net
