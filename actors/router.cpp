#include "actors/router.hpp"

#include "actors/lookup_pacing.hpp"
#include "core/stamp.hpp"
#include "logging/log.hpp"

#include <caf/openssl/manager.hpp>
#include <caf/response_promise.hpp>

#include <algorithm>
#include <chrono>
#include <memory>

namespace simsync {

namespace {

using router_pointer = router_actor::stateful_pointer<router_state>;

/// Long enough for a bootstrap of a large book; the sender retries after it.
constexpr auto apply_timeout = std::chrono::seconds{60};
/// The directory may hold a part for its peer's pace first (lookup_limits).
constexpr auto directory_timeout = apply_timeout + lookup_limits{}.max_delay;
constexpr auto join_timeout = std::chrono::seconds{10};
constexpr auto rejoin_delay = std::chrono::milliseconds{500};

void rejoin_later(router_pointer self, int32_t sibling) {
  self->delayed_send(self, rejoin_delay, atom::join_v, sibling);
}

/// Takes the shards a sibling knows, never replacing one already known.
void adopt(router_pointer self, const node_shards& known) {
  auto& shards = self->state.shards;
  for (size_t i = 0; i < known.indices.size() && i < known.handles.size(); ++i) {
    auto index = static_cast<size_t>(known.indices[i]);
    if (index < shards.size() && !shards[index])
      shards[index] = known.handles[i];
  }
}

/// Of two nodes of a carrier, the one whose id sorts first connects: CAF 0.17
/// closes one of two connections between the same two systems as
/// "redundant", and if both nodes connect at once each may close its own.
bool initiates(const router_state& st, int32_t sibling) {
  return st.node < st.siblings[static_cast<size_t>(sibling)].id;
}

/// Takes the router of sibling `i` (which joined, or which this node joined):
/// watch it, and take the shards it knows.
void joined(router_pointer self, int32_t sibling, router_actor other) {
  self->monitor(other);
  self->state.sibling_routers[static_cast<size_t>(sibling)] = other;
  self->request(other, join_timeout, atom::shards_v)
      .then([self](const node_shards& known) { adopt(self, known); },
            [self, sibling](caf::error&) {
              if (initiates(self->state, sibling))
                rejoin_later(self, sibling);
            });
}

void join(router_pointer self, int32_t sibling) {
  auto& st = self->state;
  const auto& at = st.siblings[static_cast<size_t>(sibling)].cluster;
  auto mm = self->system().openssl_manager().actor_handle();
  self->request(mm, join_timeout, caf::connect_atom::value, at.host,
                static_cast<uint16_t>(at.port))
      .then(
          [self, sibling](const caf::node_id&, caf::strong_actor_ptr& ptr,
                          const std::set<std::string>&) {
            if (!ptr) {
              rejoin_later(self, sibling);
              return;
            }
            auto other = caf::actor_cast<router_actor>(std::move(ptr));
            // Tell it who joined, so that it routes to this node too.
            self->request(other, join_timeout, atom::join_v, self->state.node)
                .then(
                    [self, sibling, other](bool accepted) {
                      // Refused: the two configurations disagree on the
                      // carrier's nodes; try again until they agree.
                      if (accepted)
                        joined(self, sibling, other);
                      else
                        rejoin_later(self, sibling);
                    },
                    [self, sibling](caf::error&) { rejoin_later(self, sibling); });
          },
          [self, sibling](caf::error&) { rejoin_later(self, sibling); });
}

/// Sibling `id` connected to this node and joined: route to it as well.
bool accept_join(router_pointer self, const std::string& id) {
  auto& st = self->state;
  for (size_t i = 0; i < st.siblings.size(); ++i) {
    if (st.siblings[i].id != id || initiates(st, static_cast<int32_t>(i)))
      continue;
    auto other = caf::actor_cast<router_actor>(self->current_sender());
    if (!other)
      return false;
    joined(self, static_cast<int32_t>(i), std::move(other));
    return true;
  }
  return false;
}

/// A sibling node went away: forget its shards until it is back (this node
/// joins it again, or waits for it to join).
void sibling_down(router_pointer self, const caf::down_msg& down) {
  auto& st = self->state;
  for (size_t i = 0; i < st.sibling_routers.size(); ++i) {
    if (!st.sibling_routers[i] || st.sibling_routers[i].address() != down.source)
      continue;
    st.sibling_routers[i] = router_actor{};
    for (int shard : st.siblings[i].shards)
      st.shards[static_cast<size_t>(shard)] = account_shard_actor{};
    if (initiates(st, static_cast<int32_t>(i)))
      rejoin_later(self, static_cast<int32_t>(i));
  }
}

/// A delivery waiting for its shards' acknowledgements.
struct delivery {
  caf::typed_response_promise<std::string> rp;
  std::string last_id;     ///< the ack: the id of the delivery's last entry
  std::size_t waiting = 0; ///< shards that have not answered yet
  bool answered = false;   ///< the first error answers at once
};

/// Splits a delivery by shard, keeping each shard's entries in stream order
/// (an account's entries all go to one shard), and asks every shard to apply
/// its part in one call. An entry that fails its checks (entry_refusal) is
/// not applied: it is kept, with its reason, among the peer's dead letters,
/// and the others go on. Acknowledges once every part is persisted (applied
/// or kept); any failure fails the whole delivery, which the link resends
/// whole: every entry is idempotent, so the parts already done take no harm.
caf::result<std::string> deliver(router_pointer self, peer_batch& msg) {
  auto& st = self->state;
  st.processed += msg.entries.size();
  if (msg.entries.empty())
    return std::string{};
  auto d = std::make_shared<delivery>();
  d->last_id = msg.entries.back().id;
  auto now = core::unix_now_ms();
  // Every shard is known before anything is sent, so a refused delivery
  // changes nothing.
  std::vector<std::vector<store::outbox_entry>> parts(st.shards.size());
  std::vector<store::dead_letter> refused;
  for (auto& e : msg.entries) {
    if (auto why = entry_refusal(e, now, st.limits); !why.empty()) {
      refused.push_back(store::dead_letter{std::move(e), std::move(why)});
      continue;
    }
    auto shard = config::shard_of(e.idcode, static_cast<int>(st.shards.size()));
    if (!st.shards[static_cast<size_t>(shard)])
      return caf::make_error(ec::store_unavailable, "the node owning shard " +
                                                        std::to_string(shard) +
                                                        " is not reachable yet");
    parts[static_cast<size_t>(shard)].push_back(std::move(e));
  }
  d->rp = self->make_response_promise<std::string>();
  for (const auto& part : parts)
    d->waiting += part.empty() ? 0 : 1;
  auto persisted = [d] {
    if (d->answered || --d->waiting > 0)
      return;
    d->answered = true;
    d->rp.deliver(d->last_id);
  };
  auto failed = [d](caf::error& err) {
    if (d->answered)
      return;
    d->answered = true;
    d->rp.deliver(std::move(err));
  };
  if (!refused.empty()) {
    logging::warn("dead_letters_kept", {{"peer", msg.origin},
                                        {"entries", refused.size()},
                                        {"first_reason", refused.front().reason}});
    ++d->waiting;
    self->request(st.letter_keeper, apply_timeout, atom::dead_letter_v, msg.origin,
                  std::move(refused))
        .then([persisted](std::uint64_t) { persisted(); }, failed);
  }
  for (size_t shard = 0; shard < parts.size(); ++shard) {
    auto& part = parts[shard];
    if (part.empty())
      continue;
    auto applied = [persisted, origin = msg.origin](const store::replicate_result& r) {
      warn_not_sibling(origin, r);
      persisted();
    };
    if (std::any_of(part.begin(), part.end(),
                    [](const auto& e) { return e.kind != store::outbox_kind::batch; }))
      self->request(st.directory, directory_timeout, atom::resolve_v, msg.origin,
                    st.shards[shard], std::move(part))
          .then(applied, failed);
    else
      self->request(st.shards[shard], apply_timeout, atom::replicate_v, msg.origin,
                    std::move(part))
          .then(applied, failed);
  }
  return d->rp;
}

} // namespace

router_actor::behavior_type router(router_pointer self, std::string node,
                                   int total_shards, std::vector<int> owned,
                                   std::vector<account_shard_actor> local,
                                   std::vector<config::node_entry> siblings,
                                   user_directory_actor directory, entry_limits limits) {
  auto& st = self->state;
  st.node = std::move(node);
  st.directory = std::move(directory);
  st.limits = limits;
  st.letter_keeper = local.front();
  st.shards.resize(static_cast<size_t>(total_shards));
  for (size_t i = 0; i < owned.size(); ++i)
    st.shards[static_cast<size_t>(owned[i])] = local[i];
  st.siblings = std::move(siblings);
  st.sibling_routers.resize(st.siblings.size());
  self->set_down_handler([self](const caf::down_msg& down) { sibling_down(self, down); });
  for (size_t i = 0; i < st.siblings.size(); ++i)
    if (initiates(st, static_cast<int32_t>(i)))
      self->send(self, atom::join_v, static_cast<int32_t>(i));
  return {
      [self](atom::deliver, peer_batch& msg) -> caf::result<std::string> {
        return deliver(self, msg);
      },
      [self](atom::shards) {
        node_shards known;
        for (size_t i = 0; i < self->state.shards.size(); ++i) {
          if (self->state.shards[i]) {
            known.indices.push_back(static_cast<int32_t>(i));
            known.handles.push_back(self->state.shards[i]);
          }
        }
        return known;
      },
      [self](atom::join, int32_t sibling) { join(self, sibling); },
      [self](atom::join, const std::string& id) { return accept_join(self, id); },
      [self](atom::replaced, int32_t shard, account_shard_actor& handle) {
        self->state.shards[static_cast<size_t>(shard)] = std::move(handle);
      },
      [self](atom::status) {
        actor_status st;
        st.name = "router";
        st.kind = "router";
        st.mailbox = self->mailbox().size();
        st.processed = self->state.processed;
        return st;
      },
  };
}

} // namespace simsync
