#include "actors/node.hpp"

#include "actors/account_shard.hpp"
#include "actors/federation.hpp"
#include "actors/peer_link.hpp"

#include <caf/io/middleman.hpp>

namespace simsync {

caf::expected<node_actors> start_node(caf::actor_system& sys,
                                      const config::node_config& cfg) {
  auto redis_at = store::redis_endpoint::parse(cfg.redis_address);
  if (!redis_at)
    return std::move(redis_at.error());
  node_actors node;
  auto owned = cfg.owned_shards();
  for (int shard : owned)
    node.shards.push_back(
        sys.spawn<caf::detached>(account_shard, *redis_at, cfg.carrier, shard));
  std::vector<config::node_entry> siblings;
  for (const auto& other : cfg.nodes)
    if (other.id != cfg.node)
      siblings.push_back(other);
  node.federation =
      sys.spawn(federation, cfg.shards, owned, node.shards, std::move(siblings));
  auto port =
      sys.middleman().publish(node.federation, static_cast<uint16_t>(cfg.federation.port),
                              cfg.federation.host.c_str(), true);
  if (!port) {
    stop_node(sys, node);
    return caf::make_error(ec::invalid_request, "cannot listen for federation on " +
                                                    cfg.federation.to_string() + ": " +
                                                    sys.render(port.error()));
  }
  node.federation_port = *port;
  for (const auto& peer : cfg.peers)
    node.links.push_back(
        sys.spawn<caf::detached>(peer_link, cfg.carrier, peer, *redis_at));
  return node;
}

bool stop_node(caf::actor_system& sys, const node_actors& node,
               std::chrono::milliseconds limit) {
  std::vector<caf::actor_addr> actors;
  for (const auto& link : node.links)
    actors.push_back(link.address());
  if (node.federation)
    actors.push_back(node.federation.address());
  for (const auto& shard : node.shards)
    actors.push_back(shard.address());
  caf::scoped_actor self{sys};
  for (const auto& a : actors) {
    self->monitor(a);
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::size_t running = actors.size();
  while (running > 0 && std::chrono::steady_clock::now() < deadline) {
    self->receive([&](const caf::down_msg&) { --running; },
                  caf::after(std::chrono::milliseconds{100}) >> [] {});
  }
  return running == 0;
}

} // namespace simsync
