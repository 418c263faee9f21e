#include "actors/federation.hpp"

#include "actors/federation_applier.hpp"
#include "actors/signed_batch.hpp"
#include "core/card_compression.hpp"
#include "core/stamp.hpp"

#include <algorithm>
#include <chrono>

namespace simsync {

namespace {

using federation_pointer = federation_actor::stateful_pointer<federation_state>;
using clock_type = std::chrono::steady_clock;

/// Longer than the router's own wait for its shards, so that the router's
/// answer, or its error, is what the peer gets.
constexpr auto router_timeout = std::chrono::seconds{90};

caf::error refuse(federation_pointer self, batch_refusal why, const std::string& origin) {
  ++self->state.refused[to_label(why)];
  return caf::make_error(ec::invalid_request, std::string{"batch refused ("} +
                                                  to_label(why) + ") from " + origin);
}

/// Whether the endpoint applies these entries itself: changes alone (a
/// directory entry needs the user directory's pacing), each for an account of
/// this node's shards, each passing its checks (one that fails is kept as a
/// dead letter, by the router). The checks parse every record, so they come
/// last: a delivery that goes to the router is checked there, once.
bool applies_here(const federation_state& st,
                  const std::vector<store::outbox_entry>& entries) {
  auto shards = static_cast<int>(st.owns.size());
  auto local_changes = [&](const store::outbox_entry& e) {
    return e.kind == store::outbox_kind::batch &&
           st.owns[static_cast<std::size_t>(config::shard_of(e.idcode, shards))];
  };
  if (!std::all_of(entries.begin(), entries.end(), local_changes))
    return false;
  auto now = core::unix_now_ms();
  return std::all_of(entries.begin(), entries.end(), [&](const store::outbox_entry& e) {
    return entry_refusal(e, now, st.limits).empty();
  });
}

void measure(federation_state& st, clock_type::time_point received) {
  if (st.latency)
    st.latency->record(clock_type::now() - received);
}

/// Has `to` (the router or the applier) persist `delivery`, waiting at most
/// `timeout`; relays its acknowledgement or its error to the peer. `answered`
/// runs when it is in.
template <class Handle, class Delivery, class Answered = void (*)()>
caf::result<std::string> relay(
    federation_pointer self, const Handle& to, caf::duration timeout, Delivery delivery,
    clock_type::time_point received, Answered answered = [] {}) {
  auto rp = self->make_response_promise<std::string>();
  self->request(to, timeout, atom::deliver_v, std::move(delivery))
      .then(
          [self, rp, received, answered](std::string& last_id) mutable {
            answered();
            measure(self->state, received);
            rp.deliver(std::move(last_id));
          },
          [rp, answered](caf::error& err) mutable {
            answered();
            rp.deliver(std::move(err));
          });
  return rp;
}

caf::result<std::string> deliver(federation_pointer self, const signed_batch& batch) {
  auto received = clock_type::now();
  auto& st = self->state;
  auto peer = st.peers.find(batch.origin);
  if (peer == st.peers.end())
    return refuse(self, batch_refusal::unknown_origin, batch.origin);
  auto opened = open_batch(self->system(), batch, st.carrier, peer->second);
  if (opened.refusal)
    return refuse(self, *opened.refusal, batch.origin);
  st.processed += opened.entries.size();
  if (opened.entries.empty())
    return std::string{};
  if (!applies_here(st, opened.entries))
    return relay(self, st.router, caf::duration{router_timeout},
                 peer_batch{batch.origin, std::move(opened.entries)}, received);
  // The ring that seals is held until the delivery is applied: key rotation
  // waits for writes sealed under an older writer (core::shared_keyring).
  auto ring = st.store->keys().current();
  auto sealed = store::seal_delivery(*ring, batch.origin, opened.entries);
  if (!sealed)
    return std::move(sealed.error());
  // These deliveries are applied in the order they came: the endpoint applies
  // one itself only while the applier holds none. It does so when nothing
  // else waits (no other thread is woken); else the applier takes it, and the
  // endpoint checks and seals the next delivery while Redis applies this one.
  // No timeout: the count may only fall when the applier is done with one (it
  // always answers: with its acknowledgement, its store's error, or, should it
  // be gone, CAF's), else a later delivery could overtake it.
  if (st.handed_over > 0 || !self->mailbox().empty()) {
    ++st.handed_over;
    return relay(self, st.applier, caf::infinite, std::move(*sealed), received,
                 [self, ring] { // `ring` is held until the applier answers
                   --self->state.handed_over;
                 });
  }
  auto acked = apply_delivery(*st.store, *sealed);
  if (!acked)
    return std::move(acked.error());
  measure(st, received);
  return std::move(*acked);
}

} // namespace

federation_actor::behavior_type
federation(federation_pointer self, std::string carrier,
           std::map<std::string, core::signature_key> peers, router_actor router,
           federation_applier_actor applier, federation_store here, bool measured) {
  auto& st = self->state;
  st.carrier = std::move(carrier);
  st.peers = std::move(peers);
  st.router = std::move(router);
  st.applier = std::move(applier);
  st.store.emplace("federation", std::move(here.redis_at), st.carrier,
                   std::move(here.keys), here.history);
  st.owns.assign(static_cast<std::size_t>(here.total_shards), false);
  for (int shard : here.owned)
    st.owns[static_cast<std::size_t>(shard)] = true;
  st.limits = here.limits;
  if (measured)
    st.latency.emplace();
  return {
      [self](atom::deliver, const signed_batch& batch) -> caf::result<std::string> {
        return deliver(self, batch);
      },
      [](atom::card_forms) {
        return std::set<std::string>{std::string(core::compressed_card_form)};
      },
      [self](atom::status) {
        auto& st = self->state;
        actor_status out;
        out.name = "federation";
        out.kind = "federation";
        out.mailbox = self->mailbox().size();
        out.processed = st.processed;
        out.refused = st.refused;
        if (st.latency) {
          out.latency_counts = st.latency->counts();
          out.latency_sum_us = st.latency->sum_us();
        }
        return out;
      },
  };
}

} // namespace simsync
