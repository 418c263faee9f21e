// carrierd: one carrier node. Thin main: load the configuration, start the
// node's actors, run until SIGTERM or SIGINT, then stop them. What it does
// is logged on stderr, one line per event (logging/log.hpp).
#include "actors/introspector.hpp"
#include "actors/node.hpp"
#include "actors/node_systems.hpp"
#include "actors/systemd_notify.hpp"
#include "logging/log.hpp"
#include "net/admin_server.hpp"
#include "net/terminal_gateway.hpp"
#include "simsync_version.hpp"
#include "store/durability.hpp"

#include <caf/actor_system.hpp>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <malloc.h>
#include <numeric>
#include <unistd.h>

namespace {

/// Ends the process after a failed start. CAF's teardown can wait forever
/// on what it already started (a listener, a remote handle), so the
/// process does not return from main: it says why and exits 1.
[[noreturn]] void fail_start(const std::string& why) {
  simsync::logging::error("start_failed", {{"reason", why}});
  std::_Exit(1);
}

std::string joined(const std::vector<std::string>& items) {
  if (items.empty())
    return "none";
  return std::accumulate(std::next(items.begin()), items.end(), items.front(),
                         [](std::string a, const std::string& b) { return a + "," + b; });
}

/// What the node runs with, and what its Redis promises about durability,
/// read back from the server: a Redis without the append-only file fsynced
/// on every write can lose what the node acknowledged.
void log_start(const simsync::config::node_config& cfg,
               const simsync::store::redis_endpoint& redis_at, bool keeps_freed_memory) {
  std::vector<std::string> shards;
  for (int s : cfg.owned_shards())
    shards.push_back(std::to_string(s));
  std::string aof = "unknown";
  std::string fsync = "unknown";
  std::string redis_state = "reachable";
  auto client = simsync::store::redis_client::connect(redis_at, std::chrono::seconds{5});
  auto durability = client
                        ? simsync::store::read_durability(*client)
                        : caf::expected<simsync::store::redis_durability>{client.error()};
  if (durability) {
    aof = durability->aof_enabled ? "on" : "off";
    fsync = durability->appendfsync.empty()
                ? "not readable by this user (CONFIG is refused)"
                : durability->appendfsync;
  } else {
    redis_state = "unreachable: " + simsync::describe(durability.error());
  }
  simsync::logging::info(
      "started",
      {{"carrier", cfg.carrier},
       {"node", cfg.node},
       {"version", simsync::version},
       {"shards", joined(shards)},
       {"of_shards", cfg.shards},
       {"gateway", cfg.gateway.to_string()},
       {"admin", cfg.admin.to_string()},
       {"federation", cfg.federation.to_string()},
       {"cluster", cfg.self().cluster.port != 0 ? cfg.self().cluster.to_string() : "off"},
       {"peers", joined(cfg.peer_ids())},
       {"redis", redis_at.to_string()},
       {"redis_user", redis_at.user},
       {"redis_state", redis_state},
       {"redis_aof", aof},
       {"redis_appendfsync", fsync},
       {"max_in_flight", cfg.max_in_flight},
       {"max_replication_lag_ms", cfg.max_replication_lag.count()},
       {"metrics", cfg.metrics},
       {"keeps_freed_memory",
        keeps_freed_memory ? "yes" : "no: glibc refused a setting"}});
  if (durability && !durability->keeps_every_write())
    simsync::logging::warn(
        "redis_not_durable",
        {{"redis", redis_at.to_string()},
         {"redis_aof", aof},
         {"redis_appendfsync", fsync},
         {"consequence", "a write acknowledged to a phone can be lost if Redis stops"}});
}

/// Keeps the memory the node frees for its next requests instead of handing
/// it back to the kernel. glibc's malloc unmaps a freed block of 128 KiB or
/// more at once, and trims a heap's free top past 128 KiB, until it has
/// seen blocks that large freed (its thresholds then rise with them); a
/// page taken back from the kernel is zeroed and mapped again at its next
/// touch, about 10 µs a page on the virtual machine of docs/performance.md
/// against 0.05 µs to write a page still held. A book or a window of
/// batches takes megabytes at once, so a node paid that again for buffers
/// it had held a moment before. Blocks up to 32 MiB (the most glibc allows)
/// now come from the heaps, which keep their free pages until 256 MiB lie
/// free at a heap's top: the resident memory stays near its peak
/// (docs/operations.md, "Memory"). False if glibc refused either setting
/// (a value beyond its limits): the node then keeps glibc's own threshold
/// for what it refused, and its start line says so.
bool keep_freed_memory() {
  bool mapped = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
  bool trimmed = mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1;
  return mapped && trimmed;
}

} // namespace

int main(int argc, char** argv) {
  bool keeps_freed_memory = keep_freed_memory();
  auto loaded = simsync::config::load_node_config(argc, argv);
  if (loaded.help) {
    std::cout << loaded.help_text;
    return 0;
  }
  if (!loaded.config) {
    std::cerr << "carrierd: " << loaded.error << "\n";
    return 2;
  }
  const auto& cfg = *loaded.config;
  simsync::logging::configure(cfg.log_level, cfg.log_format);
  if (auto missing = simsync::config::missing_credentials(cfg); !missing.empty()) {
    std::cerr << "carrierd: " << missing << "\n";
    return 2;
  }
  // CAF aborts the process on a TLS file it cannot load, at the first
  // connection: load them now and say which one is wrong instead.
  for (auto [tls, what] :
       {std::pair{&cfg.federation_tls, "federation"}, {&cfg.cluster_tls, "cluster"}}) {
    if (tls->certificate_file.empty())
      continue;
    if (auto err = simsync::check_tls_identity(*tls, what)) {
      std::cerr << "carrierd: " << simsync::describe(err) << "\n";
      return 2;
    }
  }
  // Block the stop signals before any thread starts, then wait for one below.
  // SIGUSR1 from the process itself says the node stopped on its own.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // Three actor systems, so that a peer carrier cannot reach what it must
  // not (actors/node_systems.hpp).
  simsync::node_system_config cluster_cfg{cfg, simsync::node_system::cluster};
  caf::actor_system sys{cluster_cfg};
  simsync::node_system_config federation_cfg{cfg, simsync::node_system::federation};
  caf::actor_system federation_sys{federation_cfg};
  simsync::node_system_config links_cfg{cfg, simsync::node_system::links};
  caf::actor_system links_sys{links_cfg};
  auto node = simsync::start_node({sys, federation_sys, links_sys}, cfg);
  if (!node)
    fail_start(simsync::describe(node.error()));
  auto meter = std::make_shared<simsync::metrics::request_meter>(cfg.metrics);
  simsync::net::gateway_limits limits;
  limits.max_in_flight = static_cast<std::size_t>(cfg.max_in_flight);
  auto gateway = simsync::net::terminal_gateway::start(sys, cfg, *node, limits, meter);
  if (!gateway)
    fail_start(simsync::describe(gateway.error()));
  std::shared_ptr<simsync::metrics::snapshot_board> board;
  if (cfg.metrics) {
    board = std::make_shared<simsync::metrics::snapshot_board>();
    sys.spawn<caf::detached>(simsync::introspector, cfg.carrier, cfg.node,
                             node->supervisor, node->redis_at, cfg.peer_ids(), meter,
                             board);
  }
  auto admin = simsync::net::admin_server::start(sys, cfg, *node, board);
  if (!admin)
    fail_start(simsync::describe(admin.error()));
  // A node whose router, federation endpoint or user directory went down
  // has stopped: the process ends too (status 1), so that its supervisor
  // (systemd, tools/cluster) starts it again instead of leaving a process
  // that listens and serves nothing.
  sys.spawn(
      [supervisor = node->supervisor](caf::event_based_actor* self) -> caf::behavior {
        self->monitor(supervisor);
        self->set_down_handler([](const caf::down_msg&) { kill(getpid(), SIGUSR1); });
        return {[](caf::ok_atom) {}};
      });
  log_start(cfg, node->redis_at, keeps_freed_memory);
  simsync::systemd_notify systemd{sys, node->supervisor};
  systemd.ready();
  siginfo_t signal{};
  while (sigwaitinfo(&stop_signals, &signal) < 0 ||
         (signal.si_signo == SIGUSR1 && signal.si_pid != getpid())) {
  }
  bool node_down = signal.si_signo == SIGUSR1;
  systemd.stopping();
  if (node_down)
    simsync::logging::error("node_down", {{"then", "the process exits (status 1)"}});
  else
    simsync::logging::info("stopping", {{"signal", strsignal(signal.si_signo)}});
  // Answer the phones' requests in flight before their shards go away.
  (*gateway)->stop();
  (*admin)->stop();
  if (node_down)
    std::_Exit(1);
  bool drained = simsync::stop_node(sys, node->supervisor);
  if (drained)
    simsync::logging::info("stopped", {});
  else
    simsync::logging::warn("stopped", {{"actors_still_busy", true}});
  // Everything acknowledged is in Redis by now. CAF's own teardown can wait
  // forever on actors that a remote node still references (their handles were
  // sent over BASP), so the process ends here instead of in ~actor_system.
  std::_Exit(drained ? 0 : 1);
}
