#include "actors/federation.hpp"

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
/// answer (or its error) is what the peer gets.
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

caf::expected<std::string> apply_here(federation_pointer self, const std::string& origin,
                                      const std::vector<store::outbox_entry>& entries) {
  auto applied = self->state.store->run(
      [&](store::account_store& s) { return s.apply_incoming(origin, entries); });
  if (!applied)
    return std::move(applied.error());
  warn_not_sibling(origin, *applied);
  return entries.back().id;
}

void measure(federation_state& st, clock_type::time_point received) {
  if (st.latency)
    st.latency->record(clock_type::now() - received);
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
  if (applies_here(st, opened.entries)) {
    auto acked = apply_here(self, batch.origin, opened.entries);
    if (!acked)
      return std::move(acked.error());
    measure(st, received);
    return std::move(*acked);
  }
  auto rp = self->make_response_promise<std::string>();
  self->request(st.router, router_timeout, atom::deliver_v,
                peer_batch{batch.origin, std::move(opened.entries)})
      .then(
          [self, rp, received](std::string& last_id) mutable {
            measure(self->state, received);
            rp.deliver(std::move(last_id));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

} // namespace

federation_actor::behavior_type
federation(federation_pointer self, std::string carrier,
           std::map<std::string, core::signature_key> peers, router_actor router,
           federation_store here, bool measured) {
  auto& st = self->state;
  st.carrier = std::move(carrier);
  st.peers = std::move(peers);
  st.router = std::move(router);
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
