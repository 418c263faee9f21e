#pragma once

// carrierd under systemd (Type=notify): READY=1 once the node serves,
// STOPPING=1 when it begins to stop, and, when the unit sets WatchdogSec,
// WATCHDOG=1 at half that period, but only while the node's supervisor
// answers a status request: a node whose actors no longer run is restarted
// by systemd, not kept alive by a thread that pings regardless. Outside
// systemd (no NOTIFY_SOCKET) every call does nothing.

#include "actors/actors.hpp"

#include <caf/actor_system.hpp>

#include <atomic>
#include <thread>

namespace simsync {

class systemd_notify {
public:
  systemd_notify(caf::actor_system& sys, node_actor node);
  ~systemd_notify(); ///< stops the watchdog's thread

  void ready();
  void stopping();

private:
  void keep_watchdog(std::chrono::microseconds period);

  caf::actor_system& sys_;
  node_actor node_;
  std::atomic<bool> stop_{false};
  std::thread watchdog_;
};

} // namespace simsync
