#include "actors/user_directory.hpp"

#include <algorithm>
#include <chrono>

namespace simsync {

namespace {

using directory_pointer = user_directory_actor::stateful_pointer<user_directory_state>;

/// As long as the router's wait for its shards: a large bootstrap may be
/// among the entries.
constexpr auto apply_timeout = std::chrono::seconds{60};

void count(user_directory_state& st, const store::replicate_result& r) {
  st.outcomes["asked"] += r.asked;
  st.outcomes["answered"] += r.answered;
  st.outcomes["siblings_added"] += r.siblings_added;
  st.outcomes["siblings_removed"] += r.siblings_removed;
}

void apply(directory_pointer self, user_directory_state::paced_part part) {
  auto rp = std::move(part.rp);
  self->request(part.shard, apply_timeout, atom::replicate_v, std::move(part.origin),
                std::move(part.entries))
      .then(
          [self, rp](store::replicate_result& r) mutable {
            ++self->state.processed;
            count(self->state, r);
            rp.deliver(std::move(r));
          },
          [self, rp](caf::error& err) mutable {
            self->state.last_error = self->system().render(err);
            rp.deliver(std::move(err));
          });
}

caf::result<store::replicate_result> resolve(directory_pointer self, std::string& origin,
                                             account_shard_actor& shard,
                                             std::vector<store::outbox_entry>& entries) {
  auto& st = self->state;
  auto lookups = static_cast<std::size_t>(
      std::count_if(entries.begin(), entries.end(), [](const store::outbox_entry& e) {
        return store::is_lookup(e.kind);
      }));
  auto wait = st.pacer.admit(origin, lookups, lookup_pacer::clock::now());
  user_directory_state::paced_part part{
      std::move(origin), std::move(shard), std::move(entries),
      self->make_response_promise<store::replicate_result>()};
  auto rp = part.rp;
  if (wait.count() == 0) {
    apply(self, std::move(part));
    return rp;
  }
  st.paced[part.origin] += lookups;
  auto id = st.next_part++;
  st.waiting.emplace(id, std::move(part));
  self->delayed_send(self, wait, atom::run_v, id);
  return rp;
}

} // namespace

user_directory_actor::behavior_type user_directory(directory_pointer self,
                                                   lookup_limits limits) {
  self->state.pacer = lookup_pacer{limits};
  return {
      [self](atom::resolve, std::string& origin, account_shard_actor& shard,
             std::vector<store::outbox_entry>& entries)
          -> caf::result<store::replicate_result> {
        return resolve(self, origin, shard, entries);
      },
      [self](atom::run, std::uint64_t id) {
        auto it = self->state.waiting.find(id);
        if (it == self->state.waiting.end())
          return;
        auto part = std::move(it->second);
        self->state.waiting.erase(it);
        apply(self, std::move(part));
      },
      [self](atom::status) {
        auto& st = self->state;
        actor_status out;
        out.name = "user_directory";
        out.kind = "user_directory";
        out.mailbox = self->mailbox().size() + st.waiting.size();
        out.processed = st.processed;
        out.last_error = st.last_error;
        out.directory = st.outcomes;
        out.paced = st.paced;
        return out;
      },
  };
}

} // namespace simsync
