#include "actors/federation.hpp"

#include "config/node_config.hpp"

#include <caf/response_promise.hpp>

#include <algorithm>
#include <chrono>

namespace simsync {

namespace {

/// Long enough for a bootstrap of a large book; the sender retries after it.
constexpr auto apply_timeout = std::chrono::seconds{60};

/// An idcode is 64 hex digits (HMAC-SHA256); anything else is not from a peer.
bool valid_idcode(const std::string& idcode) {
  return idcode.size() == 64 && std::all_of(idcode.begin(), idcode.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

} // namespace

federation_actor::behavior_type
federation(federation_actor::stateful_pointer<federation_state> self, int total_shards,
           std::vector<int> owned, std::vector<account_shard_actor> shards) {
  self->state.total_shards = total_shards;
  self->state.owned = std::move(owned);
  self->state.shards = std::move(shards);
  return {
      [=](atom::deliver, peer_message& msg) -> caf::result<std::string> {
        auto& st = self->state;
        ++st.processed;
        if (!valid_idcode(msg.entry.idcode))
          return caf::make_error(ec::invalid_request,
                                 "not an idcode: " + msg.entry.idcode);
        int shard = config::shard_of(msg.entry.idcode, st.total_shards);
        auto at = std::find(st.owned.begin(), st.owned.end(), shard);
        if (at == st.owned.end())
          return caf::make_error(ec::invalid_request, "shard " + std::to_string(shard) +
                                                          " is not owned by this node");
        auto target = st.shards[static_cast<size_t>(at - st.owned.begin())];
        auto rp = self->make_response_promise<std::string>();
        auto ack = [rp, id = msg.entry.id](auto&&...) mutable { rp.deliver(id); };
        auto fail = [rp](caf::error& err) mutable { rp.deliver(std::move(err)); };
        if (msg.entry.kind == store::outbox_kind::announce)
          self->request(target, apply_timeout, atom::add_sibling_v, msg.entry.idcode,
                        msg.origin)
              .then([ack](bool) mutable { ack(); }, fail);
        else
          self->request(target, apply_timeout, atom::replicate_v, msg.entry.idcode,
                        msg.entry.batch)
              .then([ack](const store::replicate_result&) mutable { ack(); }, fail);
        return rp;
      },
      [=](atom::shards) {
        return node_shards{self->state.owned, self->state.shards};
      },
  };
}

} // namespace simsync
