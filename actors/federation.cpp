#include "actors/federation.hpp"

#include "actors/signed_batch.hpp"

#include <chrono>

namespace simsync {

namespace {

using federation_pointer = federation_actor::stateful_pointer<federation_state>;

/// Longer than the router's own wait for its shards, so that the router's
/// answer (or its error) is what the peer gets.
constexpr auto router_timeout = std::chrono::seconds{90};

caf::error refuse(federation_pointer self, batch_refusal why, const std::string& origin) {
  ++self->state.refused[to_label(why)];
  return caf::make_error(ec::invalid_request, std::string{"batch refused ("} +
                                                  to_label(why) + ") from " + origin);
}

caf::result<std::string> deliver(federation_pointer self, const signed_batch& batch) {
  auto& st = self->state;
  auto peer = st.peers.find(batch.origin);
  if (peer == st.peers.end())
    return refuse(self, batch_refusal::unknown_origin, batch.origin);
  auto opened = open_batch(self->system(), batch, st.carrier, peer->second);
  if (opened.refusal)
    return refuse(self, *opened.refusal, batch.origin);
  st.processed += opened.entries.size();
  auto rp = self->make_response_promise<std::string>();
  self->request(st.router, router_timeout, atom::deliver_v,
                peer_batch{batch.origin, std::move(opened.entries)})
      .then([rp](std::string& last_id) mutable { rp.deliver(std::move(last_id)); },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

} // namespace

federation_actor::behavior_type
federation(federation_pointer self, std::string carrier,
           std::map<std::string, core::signature_key> peers, router_actor router) {
  auto& st = self->state;
  st.carrier = std::move(carrier);
  st.peers = std::move(peers);
  st.router = std::move(router);
  return {
      [self](atom::deliver, const signed_batch& batch) -> caf::result<std::string> {
        return deliver(self, batch);
      },
      [self](atom::status) {
        actor_status st;
        st.name = "federation";
        st.kind = "federation";
        st.mailbox = self->mailbox().size();
        st.processed = self->state.processed;
        st.refused = self->state.refused;
        return st;
      },
  };
}

} // namespace simsync
