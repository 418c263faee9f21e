#include "actors/federation.hpp"

#include <caf/io/middleman.hpp>
#include <caf/response_promise.hpp>

#include <algorithm>
#include <chrono>

namespace simsync {

namespace {

using federation_pointer = federation_actor::stateful_pointer<federation_state>;

/// Long enough for a bootstrap of a large book; the sender retries after it.
constexpr auto apply_timeout = std::chrono::seconds{60};
constexpr auto join_timeout = std::chrono::seconds{10};
constexpr auto rejoin_delay = std::chrono::milliseconds{500};

/// An idcode is 64 hex digits (HMAC-SHA256); anything else is not from a peer.
bool valid_idcode(const std::string& idcode) {
  return idcode.size() == 64 && std::all_of(idcode.begin(), idcode.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

void rejoin_later(federation_pointer self, int32_t sibling) {
  self->delayed_send(self, rejoin_delay, atom::join_v, sibling);
}

/// Takes the shards a sibling knows, never replacing one already known.
void adopt(federation_pointer self, const node_shards& known) {
  auto& shards = self->state.shards;
  for (size_t i = 0; i < known.indices.size() && i < known.handles.size(); ++i) {
    auto index = static_cast<size_t>(known.indices[i]);
    if (index < shards.size() && !shards[index])
      shards[index] = known.handles[i];
  }
}

void join(federation_pointer self, int32_t sibling) {
  auto& st = self->state;
  const auto& at = st.siblings[static_cast<size_t>(sibling)].federation;
  auto mm = self->system().middleman().actor_handle();
  self->request(mm, join_timeout, caf::connect_atom::value, at.host,
                static_cast<uint16_t>(at.port))
      .then(
          [self, sibling](const caf::node_id&, caf::strong_actor_ptr& ptr,
                          const std::set<std::string>&) {
            if (!ptr) {
              rejoin_later(self, sibling);
              return;
            }
            auto endpoint = caf::actor_cast<federation_actor>(std::move(ptr));
            self->monitor(endpoint);
            self->state.sibling_endpoints[static_cast<size_t>(sibling)] = endpoint;
            self->request(endpoint, join_timeout, atom::shards_v)
                .then([self](const node_shards& known) { adopt(self, known); },
                      [self, sibling](caf::error&) { rejoin_later(self, sibling); });
          },
          [self, sibling](caf::error&) { rejoin_later(self, sibling); });
}

/// A sibling node went away: forget its shards until it is back.
void sibling_down(federation_pointer self, const caf::down_msg& down) {
  auto& st = self->state;
  for (size_t i = 0; i < st.sibling_endpoints.size(); ++i) {
    if (!st.sibling_endpoints[i] || st.sibling_endpoints[i].address() != down.source)
      continue;
    st.sibling_endpoints[i] = federation_actor{};
    for (int shard : st.siblings[i].shards)
      st.shards[static_cast<size_t>(shard)] = account_shard_actor{};
    rejoin_later(self, static_cast<int32_t>(i));
  }
}

} // namespace

federation_actor::behavior_type federation(federation_pointer self, int total_shards,
                                           std::vector<int> owned,
                                           std::vector<account_shard_actor> local,
                                           std::vector<config::node_entry> siblings,
                                           bool measured) {
  auto& st = self->state;
  if (measured)
    st.latency.emplace();
  st.shards.resize(static_cast<size_t>(total_shards));
  for (size_t i = 0; i < owned.size(); ++i)
    st.shards[static_cast<size_t>(owned[i])] = local[i];
  st.siblings = std::move(siblings);
  st.sibling_endpoints.resize(st.siblings.size());
  self->set_down_handler([self](const caf::down_msg& down) { sibling_down(self, down); });
  for (size_t i = 0; i < st.siblings.size(); ++i)
    self->send(self, atom::join_v, static_cast<int32_t>(i));
  return {
      [self](atom::deliver, peer_message& msg) -> caf::result<std::string> {
        auto& st = self->state;
        ++st.processed;
        if (!valid_idcode(msg.entry.idcode))
          return caf::make_error(ec::invalid_request,
                                 "not an idcode: " + msg.entry.idcode);
        auto shard =
            config::shard_of(msg.entry.idcode, static_cast<int>(st.shards.size()));
        auto target = st.shards[static_cast<size_t>(shard)];
        if (!target)
          return caf::make_error(ec::store_unavailable, "the node owning shard " +
                                                            std::to_string(shard) +
                                                            " is not reachable yet");
        auto rp = self->make_response_promise<std::string>();
        auto id = msg.entry.id;
        auto fail = [rp](caf::error& err) mutable { rp.deliver(std::move(err)); };
        auto acked = [self, rp, id,
                      received = std::chrono::steady_clock::now()](auto&&...) mutable {
          if (self->state.latency)
            self->state.latency->record(std::chrono::steady_clock::now() - received);
          rp.deliver(id);
        };
        switch (msg.entry.kind) {
        case store::outbox_kind::announce:
          self->request(target, apply_timeout, atom::add_sibling_v, msg.entry.idcode,
                        msg.origin)
              .then([acked](bool) mutable { acked(); }, fail);
          break;
        case store::outbox_kind::retire:
          self->request(target, apply_timeout, atom::remove_sibling_v, msg.entry.idcode,
                        msg.origin)
              .then([acked](bool) mutable { acked(); }, fail);
          break;
        case store::outbox_kind::batch:
          self->request(target, apply_timeout, atom::replicate_v, msg.entry.idcode,
                        msg.entry.batch)
              .then([acked](const store::replicate_result&) mutable { acked(); }, fail);
          break;
        }
        return rp;
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
      [self](atom::replaced, int32_t shard, account_shard_actor& handle) {
        self->state.shards[static_cast<size_t>(shard)] = std::move(handle);
      },
      [self](atom::status) {
        actor_status st;
        st.name = "federation";
        st.kind = "federation";
        st.mailbox = self->mailbox().size();
        st.processed = self->state.processed;
        if (self->state.latency) {
          st.latency_counts = self->state.latency->counts();
          st.latency_sum_us = self->state.latency->sum_us();
        }
        return st;
      },
  };
}

} // namespace simsync
