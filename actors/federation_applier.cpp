#include "actors/federation_applier.hpp"

#include "actors/incoming_entries.hpp"

namespace simsync {

caf::expected<std::string> apply_delivery(store::reconnecting_store& store,
                                          const store::sealed_delivery& delivery) {
  auto applied =
      store.run([&](store::account_store& s) { return s.apply_incoming(delivery); });
  if (!applied)
    return std::move(applied.error());
  warn_not_sibling(delivery.origin, *applied);
  return delivery.entries.back().id;
}

federation_applier_actor::behavior_type federation_applier(
    federation_applier_actor::stateful_pointer<federation_applier_state> self,
    std::string carrier, store::redis_endpoint redis_at,
    std::shared_ptr<const core::shared_keyring> keys, store::history_policy history) {
  self->state.store.emplace("federation_applier", std::move(redis_at), std::move(carrier),
                            std::move(keys), history);
  return {
      [self](atom::deliver,
             const store::sealed_delivery& delivery) -> caf::result<std::string> {
        auto& st = self->state;
        auto acked = apply_delivery(*st.store, delivery);
        if (!acked) {
          st.last_error = describe(acked.error());
          return std::move(acked.error());
        }
        st.last_error.clear();
        st.processed += delivery.entries.size();
        return std::move(*acked);
      },
      [self](atom::status) {
        auto& st = self->state;
        actor_status out;
        out.name = out.kind = "federation_applier";
        out.mailbox = self->mailbox().size();
        out.processed = st.processed;
        out.last_error = st.last_error;
        return out;
      },
  };
}

} // namespace simsync
