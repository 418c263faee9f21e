// carrierd: one carrier node. Thin main: load the configuration, start the
// node's actors, run until SIGTERM or SIGINT, then stop them.
#include "actors/introspector.hpp"
#include "actors/node.hpp"
#include "actors/node_systems.hpp"
#include "net/admin_server.hpp"
#include "net/terminal_gateway.hpp"

#include <caf/actor_system.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

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
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
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
  if (!node) {
    std::cerr << "carrierd: " << simsync::describe(node.error()) << "\n";
    return 1;
  }
  auto meter = std::make_shared<simsync::metrics::request_meter>(cfg.metrics);
  simsync::net::gateway_limits limits;
  limits.max_in_flight = static_cast<std::size_t>(cfg.max_in_flight);
  auto gateway = simsync::net::terminal_gateway::start(sys, cfg, *node, limits, meter);
  if (!gateway) {
    std::cerr << "carrierd: " << simsync::describe(gateway.error()) << "\n";
    simsync::stop_node(sys, node->supervisor);
    std::_Exit(1); // see the end of main
  }
  std::shared_ptr<simsync::metrics::snapshot_board> board;
  if (cfg.metrics) {
    board = std::make_shared<simsync::metrics::snapshot_board>();
    auto redis_at = *simsync::store::redis_endpoint::parse(cfg.redis_address);
    redis_at.user = cfg.redis_user;
    redis_at.password = cfg.redis_password;
    sys.spawn<caf::detached>(simsync::introspector, cfg.carrier, cfg.node,
                             node->supervisor, std::move(redis_at), cfg.peer_ids(), meter,
                             board);
  }
  auto admin =
      simsync::net::admin_server::start(sys, cfg, node->router, node->keys, board);
  if (!admin) {
    std::cerr << "carrierd: " << simsync::describe(admin.error()) << "\n";
    (*gateway)->stop();
    simsync::stop_node(sys, node->supervisor);
    std::_Exit(1);
  }
  std::cout << "carrierd: " << cfg.carrier << "/" << cfg.node << " up, "
            << cfg.owned_shards().size() << " shard(s), federation on "
            << cfg.federation.to_string()
            << (cfg.self().cluster.port != 0
                    ? ", cluster on " + cfg.self().cluster.to_string()
                    : std::string{})
            << ", gateway on " << cfg.gateway.to_string() << ", admin on "
            << cfg.admin.to_string() << (cfg.metrics ? "" : " (metrics off)") << ", "
            << cfg.peers.size() << " peer link(s)" << std::endl;
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
