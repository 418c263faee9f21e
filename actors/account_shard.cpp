#include "actors/account_shard.hpp"

#include "core/stamp.hpp"

#include <caf/result.hpp>

namespace simsync {

namespace {

using shard_pointer = account_shard_actor::stateful_pointer<account_shard_state>;

/// Runs one store operation and turns its expected into the handler's result.
template <class F>
auto with_store(shard_pointer self, F&& op) -> caf::result<
    typename decltype(op(std::declval<store::account_store&>()))::value_type> {
  ++self->state.processed;
  metrics::scoped_timer timer{self->state.latency ? &*self->state.latency : nullptr};
  auto r = self->state.store->run(std::forward<F>(op));
  if (!r) {
    self->state.last_error = describe(r.error());
    return std::move(r.error());
  }
  return std::move(*r);
}

/// Why a shared write is refused now (replication too far behind), or none.
caf::error shared_write_refusal(shard_pointer self) {
  return self->state.backlog->refusal_now(self->state.max_lag);
}

} // namespace

account_shard_actor::behavior_type
account_shard(shard_pointer self, store::redis_endpoint redis_at, std::string carrier,
              int shard, std::shared_ptr<const core::shared_keyring> keys,
              std::shared_ptr<const replication_backlog> backlog,
              std::chrono::milliseconds max_lag, store::history_policy history,
              std::vector<std::string> peers, bool measured) {
  self->state.backlog = std::move(backlog);
  self->state.max_lag = max_lag;
  self->state.peers = std::move(peers);
  if (measured)
    self->state.latency.emplace();
  self->state.shard = shard;
  self->state.store.emplace("account_shard/" + std::to_string(shard), std::move(redis_at),
                            std::move(carrier), std::move(keys), history);
  return {
      [=](atom::register_line, const store::register_request& req) {
        return with_store(self,
                          [&](store::account_store& s) { return s.register_line(req); });
      },
      [=](atom::find_line, const std::string& line) {
        return with_store(self,
                          [&](store::account_store& s)
                              -> caf::expected<caf::optional<store::line_info>> {
                            auto found = s.find_line(line);
                            if (!found)
                              return std::move(found.error());
                            if (!*found)
                              return caf::optional<store::line_info>{};
                            return caf::optional<store::line_info>{std::move(**found)};
                          });
      },
      [=](atom::upload,
          const store::upload_request& req) -> caf::result<store::upload_result> {
        if (req.refused_when_behind())
          if (auto refusal = shared_write_refusal(self))
            return refusal;
        return with_store(self, [&](store::account_store& s) { return s.upload(req); });
      },
      [=](atom::history, const std::string& idcode, const std::string& line,
          const std::string& proof, store::scope where, const std::string& before,
          std::uint64_t limit) {
        return with_store(self, [&](store::account_store& s) {
          return s.read_history(idcode, line, proof, where, before, limit);
        });
      },
      [=](atom::restore,
          const store::restore_request& req) -> caf::result<store::upload_result> {
        if (req.scope == store::scope::shared && !req.preview)
          if (auto refusal = shared_write_refusal(self))
            return refusal;
        return with_store(self, [&](store::account_store& s) { return s.restore(req); });
      },
      [=](atom::replicate, const std::string& origin,
          const std::vector<store::outbox_entry>& entries) {
        return with_store(self, [&](store::account_store& s) {
          return s.apply_incoming(origin, entries);
        });
      },
      [=](atom::update, const std::string& idcode, const std::string& line,
          const std::string& proof) {
        return with_store(self, [&](store::account_store& s) {
          return s.request_update(idcode, line, proof);
        });
      },
      [=](atom::fetch, const store::pending_request& req) {
        return with_store(self,
                          [&](store::account_store& s) { return s.fetch_page(req); });
      },
      [=](atom::ack, const std::string& idcode, const std::string& line,
          const std::string& proof, const std::string& cursor, store::decision what,
          std::uint32_t step) {
        return with_store(self, [&](store::account_store& s) {
          return s.ack_step(idcode, line, proof, cursor, what, step);
        });
      },
      [=](atom::read_cards, const std::string& idcode, const std::string& line,
          const std::string& proof, store::scope where) {
        return with_store(self, [&](store::account_store& s) {
          return s.read_cards(idcode, line, proof, where);
        });
      },
      [=](atom::remove_line, const std::string& idcode, const std::string& line,
          const std::string& proof) {
        return with_store(self, [&](store::account_store& s) {
          return s.remove_line(idcode, line, proof, self->state.peers);
        });
      },
      [=](atom::claim, const std::string& line, const std::string& idcode,
          std::uint64_t now_ms, const std::string& take_over_from) {
        return with_store(self, [&](store::account_store& s) {
          return s.claim_line(line, idcode, now_ms, take_over_from);
        });
      },
      [=](atom::release, const std::string& line, const std::string& idcode) {
        return with_store(
            self, [&](store::account_store& s) { return s.release_claim(line, idcode); });
      },
      [=](atom::token_hashes, const std::string& idcode) {
        return with_store(
            self, [&](store::account_store& s) { return s.token_hashes(idcode); });
      },
      [=](atom::put_subscriber, std::vector<store::subscriber_record> records,
          std::uint64_t now_ms) {
        return with_store(self, [&](store::account_store& s) {
          return s.put_subscribers(std::move(records), now_ms);
        });
      },
      [=](atom::delete_subscriber, const std::string& line) {
        return with_store(self, [&](store::account_store& s) {
          return store::delete_subscriber(s.redis(), line);
        });
      },
      [=](atom::issue_code, const store::code_request& req) {
        return with_store(self, [&](store::account_store& s) {
          return store::issue_code(s.redis(), req);
        });
      },
      [=](atom::verify_code, const store::code_check& req) {
        return with_store(self, [&](store::account_store& s) {
          return store::verify_code(s.redis(), req);
        });
      },
      [=](atom::dead_letter, const std::string& peer,
          const std::vector<store::dead_letter>& letters) {
        return with_store(self, [&](store::account_store& s) {
          return store::keep_dead_letters(s.redis(), *self->state.store->keys().current(),
                                          peer, letters, core::unix_now_ms());
        });
      },
      [=](atom::dead_letter, const std::string& peer, std::uint64_t limit) {
        return with_store(self, [&](store::account_store& s) {
          return store::read_dead_letters(s.redis(), *self->state.store->keys().current(),
                                          peer, limit);
        });
      },
      [=](atom::dead_letter, const std::string& peer, const std::string& id) {
        return with_store(self, [&](store::account_store& s) {
          return store::read_dead_letters(s.redis(), *self->state.store->keys().current(),
                                          peer, 1, id, id);
        });
      },
      [=](atom::drop_letter, const std::string& peer, const std::string& id) {
        return with_store(self, [&](store::account_store& s) {
          return store::drop_dead_letter(s.redis(), peer, id);
        });
      },
      [=](atom::set_aside, const std::string& peer, std::uint64_t limit) {
        return with_store(self, [&](store::account_store& s) {
          return store::read_set_aside(s.redis(), peer, limit);
        });
      },
      [=](atom::drop_aside, const std::string& peer, const std::string& id) {
        return with_store(self, [&](store::account_store& s) {
          return store::drop_set_aside(s.redis(), peer, id);
        });
      },
      [=](atom::status) {
        actor_status st;
        st.name = "account_shard/" + std::to_string(self->state.shard);
        st.kind = "account_shard";
        st.shard = self->state.shard;
        st.mailbox = self->mailbox().size();
        st.processed = self->state.processed;
        st.last_error = self->state.last_error;
        if (self->state.latency) {
          st.latency_counts = self->state.latency->counts();
          st.latency_sum_us = self->state.latency->sum_us();
        }
        return st;
      },
  };
}

} // namespace simsync
