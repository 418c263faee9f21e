#include "actors/node.hpp"

#include "actors/account_shard.hpp"
#include "actors/federation.hpp"
#include "actors/federation_applier.hpp"
#include "actors/peer_link.hpp"
#include "actors/router.hpp"
#include "actors/user_directory.hpp"
#include "logging/log.hpp"

#include <caf/openssl/publish.hpp>

#include <algorithm>
#include <memory>

namespace simsync {

namespace {

using node_pointer = node_actor::stateful_pointer<node_state>;

constexpr auto first_backoff = std::chrono::milliseconds{100};
constexpr auto max_backoff = std::chrono::milliseconds{5000};
constexpr auto status_timeout = std::chrono::seconds{2};

caf::actor spawn_child(caf::actor_system& sys, const node_state& st,
                       const node_state::child& c) {
  if (c.is_shard)
    return caf::actor_cast<caf::actor>(sys.spawn<caf::detached>(
        account_shard, st.redis_at, st.carrier, c.index, st.keys,
        std::shared_ptr<const replication_backlog>{st.backlog}, st.max_replication_lag,
        st.history, config::peer_ids_of(st.peers), st.measured));
  return caf::actor_cast<caf::actor>(st.links_system->spawn<caf::detached>(
      peer_link, st.carrier, st.peers[static_cast<size_t>(c.index)], *st.signing_key,
      st.redis_at, std::shared_ptr<const core::shared_keyring>{st.keys}, st.backlog,
      static_cast<std::size_t>(c.index), st.peer_ack_timeout, st.measured));
}

/// As the status and the log name it: account_shard/3, peer_link/b.
std::string name_of(const node_state& st, const node_state::child& c) {
  return c.is_shard ? "account_shard/" + std::to_string(c.index)
                    : "peer_link/" + st.peers[static_cast<size_t>(c.index)].id;
}

void on_child_down(node_pointer self, const caf::down_msg& down) {
  auto& st = self->state;
  auto it = std::find_if(st.children.begin(), st.children.end(), [&](const auto& c) {
    return c.handle.address() == down.source;
  });
  if (it == st.children.end())
    return;
  if (st.stopping) {
    if (--st.still_running == 0)
      self->quit(caf::exit_reason::user_shutdown);
    return;
  }
  // A child failed: respawn it after a backoff that grows while it keeps failing.
  it->last_error = self->system().render(down.reason);
  it->backoff = std::min(max_backoff, std::max(first_backoff, it->backoff * 2));
  logging::warn("actor_restarting", {{"actor", name_of(st, *it)},
                                     {"reason", it->last_error},
                                     {"in_ms", it->backoff.count()},
                                     {"restarts_before", it->restarts}});
  self->delayed_send(self, it->backoff, atom::restart_v,
                     static_cast<int32_t>(it - st.children.begin()));
}

void restart_child(node_pointer self, int32_t i) {
  auto& st = self->state;
  auto& c = st.children[static_cast<size_t>(i)];
  if (st.stopping)
    return;
  c.handle = spawn_child(self->system(), st, c);
  ++c.restarts;
  self->monitor(c.handle);
  if (c.is_shard)
    self->send(st.router, atom::replaced_v, c.index,
               caf::actor_cast<account_shard_actor>(c.handle));
}

/// Stops every child and quits once all are down.
void begin_stop(node_pointer self) {
  auto& st = self->state;
  if (st.stopping)
    return;
  st.stopping = true;
  st.still_running = st.children.size();
  for (auto& c : st.children)
    self->send_exit(c.handle, caf::exit_reason::user_shutdown);
  for (auto& e : st.essentials)
    self->send_exit(e.handle, caf::exit_reason::user_shutdown);
  if (st.still_running == 0)
    self->quit(caf::exit_reason::user_shutdown);
}

caf::result<std::vector<actor_status>> collect_status(node_pointer self) {
  struct collection {
    std::vector<actor_status> statuses;
    std::size_t pending = 0;
    caf::typed_response_promise<std::vector<actor_status>> rp;
  };
  auto& st = self->state;
  auto all = std::make_shared<collection>();
  all->rp = self->make_response_promise<std::vector<actor_status>>();
  all->pending = st.children.size() + st.essentials.size();
  auto done = [all] {
    if (--all->pending == 0)
      all->rp.deliver(std::move(all->statuses));
  };
  // The node adds what only it knows: restarts, and why the last one died.
  auto ask = [&](const caf::actor& whom, actor_status fallback, std::uint32_t restarts,
                 const std::string& death) {
    fallback.restarts = restarts;
    self->request(whom, status_timeout, atom::status_v)
        .then(
            [all, done, restarts, death](actor_status& s) {
              s.restarts = restarts;
              if (s.last_error.empty())
                s.last_error = death;
              all->statuses.push_back(std::move(s));
              done();
            },
            [self, all, done, fallback](caf::error& err) mutable {
              fallback.last_error = "no status: " + self->system().render(err);
              all->statuses.push_back(std::move(fallback));
              done();
            });
  };
  for (const auto& e : st.essentials) {
    actor_status fallback;
    fallback.name = fallback.kind = e.kind;
    ask(e.handle, std::move(fallback), 0, {});
  }
  for (const auto& c : st.children) {
    actor_status fallback;
    fallback.kind = c.is_shard ? "account_shard" : "peer_link";
    fallback.name = name_of(st, c);
    fallback.shard = c.is_shard ? c.index : -1;
    ask(c.handle, std::move(fallback), c.restarts,
        c.last_error.empty() ? std::string{} : "restarted after: " + c.last_error);
  }
  return all->rp;
}

node_actor::behavior_type node(node_pointer self, node_state init) {
  self->state = std::move(init);
  for (auto& c : self->state.children)
    self->monitor(c.handle);
  for (auto& e : self->state.essentials)
    self->monitor(e.handle);
  self->set_down_handler([self](const caf::down_msg& down) {
    const auto& essentials = self->state.essentials;
    auto essential =
        std::find_if(essentials.begin(), essentials.end(),
                     [&](const auto& e) { return e.handle.address() == down.source; });
    if (essential != essentials.end()) {
      if (!self->state.stopping) {
        logging::error(
            "essential_actor_down",
            {{"actor", essential->kind},
             {"reason", self->system().render(down.reason)},
             {"then",
              "the node stops, and carrierd exits for its supervisor to restart it"}});
        begin_stop(self);
      }
      return;
    }
    on_child_down(self, down);
  });
  self->set_exit_handler([self](const caf::exit_msg&) { begin_stop(self); });
  return {
      [self](atom::status) { return collect_status(self); },
      [self](atom::restart, int32_t i) { restart_child(self, i); },
  };
}

} // namespace

namespace {

/// Stops what start_node spawned before it failed.
caf::error abandon(node_state& st, caf::error err) {
  for (auto& e : st.essentials)
    caf::anon_send_exit(e.handle, caf::exit_reason::user_shutdown);
  for (auto& c : st.children)
    caf::anon_send_exit(c.handle, caf::exit_reason::user_shutdown);
  return err;
}

caf::error cannot_listen(caf::actor_system& sys, const char* what,
                         const config::host_port& at, const caf::error& why) {
  return caf::make_error(ec::invalid_request, std::string{"cannot listen for "} + what +
                                                  " on " + at.to_string() + ": " +
                                                  sys.render(why));
}

} // namespace

caf::expected<running_node> start_node(node_systems systems,
                                       const config::node_config& cfg) {
  auto& cluster_sys = systems.cluster;
  auto& federation_sys = systems.federation;
  auto redis_at = store::redis_endpoint::parse(cfg.redis_address);
  if (!redis_at)
    return std::move(redis_at.error());
  redis_at->user = cfg.redis_user;
  redis_at->password = cfg.redis_password;
  node_state st;
  st.carrier = cfg.carrier;
  st.links_system = &systems.links;
  st.signing_key = core::signature_key::private_from_pem(cfg.signing_key);
  if (!st.signing_key)
    return caf::make_error(ec::invalid_request,
                           "federation.signing_key_file: not an Ed25519 private key");
  std::map<std::string, core::signature_key> peer_keys;
  for (const auto& peer : cfg.peers) {
    auto key = core::signature_key::public_from_pem(peer.public_key);
    if (!key)
      return caf::make_error(ec::invalid_request, "the public_key_file of peer " +
                                                      peer.id +
                                                      ": not an Ed25519 public key");
    peer_keys.emplace(peer.id, std::move(*key));
  }
  st.redis_at = *redis_at;
  st.peers = cfg.peers;
  st.backlog = std::make_shared<replication_backlog>(cfg.peer_ids());
  st.max_replication_lag = cfg.max_replication_lag;
  st.peer_ack_timeout = cfg.peer_ack_timeout;
  st.measured = cfg.metrics;
  st.keys = std::make_shared<core::shared_keyring>(cfg.keys);
  st.history = store::history_policy{static_cast<std::uint64_t>(cfg.history_keep.count()),
                                     cfg.history_keep_versions};
  auto owned = cfg.owned_shards();
  std::vector<account_shard_actor> shards;
  for (int shard : owned) {
    node_state::child c;
    c.is_shard = true;
    c.index = shard;
    c.handle = spawn_child(cluster_sys, st, c);
    shards.push_back(caf::actor_cast<account_shard_actor>(c.handle));
    st.children.push_back(std::move(c));
  }
  std::vector<config::node_entry> siblings;
  for (const auto& other : cfg.nodes)
    if (other.id != cfg.node)
      siblings.push_back(other);
  auto directory = cluster_sys.spawn(
      user_directory, lookup_limits{static_cast<double>(cfg.lookups_per_second),
                                    static_cast<double>(cfg.lookup_burst)});
  st.essentials.push_back({"user_directory", caf::actor_cast<caf::actor>(directory)});
  st.router = cluster_sys.spawn<caf::detached>(
      router, cfg.node, cfg.shards, owned, shards, std::move(siblings),
      std::move(directory), entry_limits_of(cfg));
  st.essentials.push_back({"router", caf::actor_cast<caf::actor>(st.router)});
  if (const auto& at = cfg.self().cluster; at.port != 0) {
    auto port = caf::openssl::publish(st.router, static_cast<uint16_t>(at.port),
                                      at.host.c_str(), true);
    if (!port)
      return abandon(st,
                     cannot_listen(cluster_sys, "the carrier's nodes", at, port.error()));
  }
  federation_store here{st.redis_at, st.keys,          st.history,
                        cfg.shards,  std::move(owned), entry_limits_of(cfg)};
  auto applier = federation_sys.spawn<caf::detached>(federation_applier, cfg.carrier,
                                                     st.redis_at, st.keys, st.history);
  st.essentials.push_back({"federation_applier", caf::actor_cast<caf::actor>(applier)});
  auto endpoint = federation_sys.spawn<caf::detached>(
      federation, cfg.carrier, std::move(peer_keys), st.router, std::move(applier),
      std::move(here), st.measured);
  st.essentials.push_back({"federation", caf::actor_cast<caf::actor>(endpoint)});
  auto port = caf::openssl::publish(endpoint, static_cast<uint16_t>(cfg.federation.port),
                                    cfg.federation.host.c_str(), true);
  if (!port)
    return abandon(
        st, cannot_listen(federation_sys, "federation", cfg.federation, port.error()));
  for (size_t i = 0; i < cfg.peers.size(); ++i) {
    node_state::child c;
    c.is_shard = false;
    c.index = static_cast<int32_t>(i);
    c.handle = spawn_child(cluster_sys, st, c);
    st.children.push_back(std::move(c));
  }
  auto router_handle = st.router;
  // Detached: it monitors and asks the peer links, in the links system.
  running_node out;
  out.router = router_handle;
  out.keys = st.keys;
  out.redis_at = st.redis_at;
  out.history = st.history;
  out.backlog = st.backlog;
  out.max_replication_lag = st.max_replication_lag;
  out.supervisor = cluster_sys.spawn<caf::detached>(node, std::move(st));
  return out;
}

bool stop_node(caf::actor_system& sys, const node_actor& node,
               std::chrono::milliseconds limit) {
  caf::scoped_actor self{sys};
  self->monitor(node);
  self->send_exit(node, caf::exit_reason::user_shutdown);
  bool stopped = false;
  self->receive([&](const caf::down_msg&) { stopped = true; },
                caf::after(limit) >> [] {});
  return stopped;
}

} // namespace simsync
