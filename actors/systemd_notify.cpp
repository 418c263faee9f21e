#include "actors/systemd_notify.hpp"

#include <caf/scoped_actor.hpp>
#include <systemd/sd-daemon.h>

namespace simsync {

systemd_notify::systemd_notify(caf::actor_system& sys, node_actor node)
    : sys_(sys), node_(std::move(node)) {}

systemd_notify::~systemd_notify() {
  stop_ = true;
  if (watchdog_.joinable())
    watchdog_.join();
}

void systemd_notify::ready() {
  sd_notify(0, "READY=1\nSTATUS=serving");
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0)
    watchdog_ =
        std::thread{[this, usec] { keep_watchdog(std::chrono::microseconds{usec}); }};
}

void systemd_notify::stopping() {
  stop_ = true;
  sd_notify(0, "STOPPING=1");
}

void systemd_notify::keep_watchdog(std::chrono::microseconds period) {
  auto every = period / 2;
  caf::scoped_actor self{sys_};
  while (!stop_) {
    auto next = std::chrono::steady_clock::now() + every;
    bool answered = false;
    self->request(node_, std::chrono::duration_cast<caf::timespan>(every), atom::status_v)
        .receive([&](const std::vector<actor_status>&) { answered = true; },
                 [](const caf::error&) {});
    if (answered && !stop_)
      sd_notify(0, "WATCHDOG=1");
    while (!stop_ && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
}

} // namespace simsync
