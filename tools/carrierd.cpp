// carrierd: one carrier node. Thin main: load the configuration, start the
// node's actors, run until SIGTERM or SIGINT, then stop them.
#include "actors/introspector.hpp"
#include "actors/node.hpp"
#include "net/admin_server.hpp"
#include "net/terminal_gateway.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

namespace {

struct carrierd_config : caf::actor_system_config {
  carrierd_config() {
    add_message_types<caf::id_block::simsync>();
    load<caf::io::middleman>();
    // BASP heartbeats let a node notice a silent peer (down_msg on its handles).
    set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds{1}});
    // One scheduler thread per core, and an idle one goes to sleep at once:
    // CAF 0.17 starts at least 4 and polls an idle one for 25 ms (500 sleeps
    // of 50 µs) before it sleeps, which cost more CPU than the node's own work
    // (perf: a third of carrierd's samples in nanosleep). A sleeping worker
    // wakes for a new job at once, and every 2 ms to steal from a busy one.
    auto cores = static_cast<std::int64_t>(std::thread::hardware_concurrency());
    set("scheduler.max-threads", std::max<std::int64_t>(2, cores));
    set("work-stealing.aggressive-poll-attempts", std::int64_t{10});
    set("work-stealing.moderate-poll-attempts", std::int64_t{0});
    set("work-stealing.relaxed-sleep-duration",
        caf::timespan{std::chrono::milliseconds{2}});
  }
};

} // namespace

int main(int argc, char** argv) {
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
  // Block the stop signals before any thread starts, then wait for one below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  carrierd_config sys_cfg;
  caf::actor_system sys{sys_cfg};
  auto node = simsync::start_node(sys, cfg);
  if (!node) {
    std::cerr << "carrierd: " << simsync::describe(node.error()) << "\n";
    return 1;
  }
  auto meter = std::make_shared<simsync::metrics::request_meter>(cfg.metrics);
  simsync::net::gateway_limits limits;
  limits.max_in_flight = static_cast<std::size_t>(cfg.max_in_flight);
  auto gateway =
      simsync::net::terminal_gateway::start(sys, cfg, node->federation, limits, meter);
  if (!gateway) {
    std::cerr << "carrierd: " << simsync::describe(gateway.error()) << "\n";
    simsync::stop_node(sys, node->supervisor);
    std::_Exit(1); // see the end of main
  }
  std::shared_ptr<simsync::metrics::snapshot_board> board;
  if (cfg.metrics) {
    board = std::make_shared<simsync::metrics::snapshot_board>();
    sys.spawn<caf::detached>(
        simsync::introspector, cfg.carrier, cfg.node, node->supervisor,
        *simsync::store::redis_endpoint::parse(cfg.redis_address), meter, board);
  }
  auto admin = simsync::net::admin_server::start(sys, cfg, node->federation, board);
  if (!admin) {
    std::cerr << "carrierd: " << simsync::describe(admin.error()) << "\n";
    (*gateway)->stop();
    simsync::stop_node(sys, node->supervisor);
    std::_Exit(1);
  }
  std::cout << "carrierd: " << cfg.carrier << "/" << cfg.node << " up, "
            << cfg.owned_shards().size() << " shard(s), federation on "
            << cfg.federation.to_string() << ", gateway on " << cfg.gateway.to_string()
            << ", admin on " << cfg.admin.to_string()
            << (cfg.metrics ? "" : " (metrics off)") << ", " << cfg.peers.size()
            << " peer link(s)" << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::cout << "carrierd: " << cfg.carrier << "/" << cfg.node << " stopping (signal "
            << sig << ")" << std::endl;
  // Answer the phones' requests in flight before their shards go away.
  (*gateway)->stop();
  (*admin)->stop();
  bool drained = simsync::stop_node(sys, node->supervisor);
  std::cout << "carrierd: " << cfg.carrier << "/" << cfg.node
            << (drained ? " stopped" : " stopped with actors still busy") << std::endl;
  // Everything acknowledged is in Redis by now. CAF's own teardown can wait
  // forever on actors that a remote node still references (their handles were
  // sent over BASP), so the process ends here instead of in ~actor_system.
  std::_Exit(drained ? 0 : 1);
}
