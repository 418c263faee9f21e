#include "actors/peer_link.hpp"

#include "actors/signed_batch.hpp"
#include "actors/window_plan.hpp"
#include "core/stamp.hpp"
#include "store/outbox.hpp"

#include <caf/openssl/remote_actor.hpp>

#include <algorithm>

namespace simsync {

namespace {

using link_pointer = peer_link_actor::stateful_pointer<peer_link_state>;

/// The window's limits (see window_limits for why these).
constexpr window_limits limits{};
/// Redis has no byte limit for a read, so the link sizes its next read from
/// the average entry of the last one (next_read_count). After a failure it
/// starts again from this few: the backlog an outage leaves may hold large
/// bootstrap batches (a whole book each), and 256 of those read at once could
/// take gigabytes.
constexpr std::size_t first_read = 4;
/// How long an idle link waits in Redis for its outbox to receive an entry
/// (it wakes as soon as one is written) before it reads its mailbox again.
constexpr auto idle_wait = std::chrono::milliseconds{20};
constexpr auto first_backoff = std::chrono::milliseconds{100};
constexpr auto max_backoff = std::chrono::milliseconds{5000};
constexpr auto ack_timeout = std::chrono::seconds{60};

void tick_after(link_pointer self, std::chrono::milliseconds delay) {
  self->delayed_send(self, delay, atom::tick_v);
}

void fail(link_pointer self, std::string why) {
  auto& st = self->state;
  st.link = link_state::down;
  st.backlog->down(st.backlog_slot);
  st.last_error = std::move(why);
  st.unsent.clear(); // the retry reads from the outbox's start
  st.read_count = first_read;
  st.backoff = std::min(max_backoff, std::max(first_backoff, st.backoff * 2));
  tick_after(self, st.backoff);
}

/// The peer node that owns the account's shard.
std::size_t node_for(const peer_link_state& st, const std::string& idcode) {
  int shard = config::shard_of(idcode, st.peer.shards);
  for (std::size_t i = 0; i < st.peer.nodes.size(); ++i) {
    const auto& owned = st.peer.nodes[i].shards;
    if (std::find(owned.begin(), owned.end(), shard) != owned.end())
      return i;
  }
  return 0; // a valid config partitions the shards; never reached
}

bool connect_node(link_pointer self, std::size_t i) {
  auto& st = self->state;
  if (st.nodes[i])
    return true;
  const auto& at = st.peer.nodes[i].federation;
  auto handle = caf::openssl::remote_actor<federation_actor>(
      self->system(), at.host, static_cast<uint16_t>(at.port));
  if (!handle) {
    fail(self, "cannot reach " + st.peer.id + " node " + st.peer.nodes[i].id + " at " +
                   at.to_string() + ": " + self->system().render(handle.error()));
    return false;
  }
  self->monitor(*handle);
  st.nodes[i] = std::move(*handle);
  return true;
}

/// Milliseconds since a Unix time in milliseconds (0 if it is in the future:
/// the stream id comes from Redis's clock, which may run a little ahead).
std::uint64_t lag_since(std::uint64_t unix_ms) {
  auto now_ms = core::unix_now_ms();
  return now_ms > unix_ms ? now_ms - unix_ms : 0;
}

/// All acks of a window are in: trim it if every entry was persisted.
void window_done(link_pointer self) {
  auto& st = self->state;
  if (st.window_failed) {
    fail(self, st.last_error);
    return;
  }
  auto trimmed = store::trim_outbox(*st.redis, st.peer.id, st.window_last_id);
  if (!trimmed) {
    fail(self, describe(trimmed.error()));
    return;
  }
  st.backoff = std::chrono::milliseconds{0};
  self->send(self, atom::tick_v);
}

/// Signs and sends one request of window `seq` to peer node `node`.
void send_batch(link_pointer self, std::size_t node, std::uint64_t seq,
                std::vector<store::outbox_entry> entries) {
  auto& st = self->state;
  auto count = entries.size();
  ++st.in_flight;
  st.batches_sent += count;
  for (const auto& e : entries)
    st.bytes_sent += e.batch.size();
  auto batch = sign_batch(self->system(), *st.signing_key, st.carrier, st.peer.id,
                          std::move(entries));
  self->request(st.nodes[node], ack_timeout, atom::deliver_v, std::move(batch))
      .then(
          [self, seq, count](const std::string&) {
            auto& st = self->state;
            if (st.window_seq != seq)
              return;
            if (st.round_trip)
              st.round_trip->record(std::chrono::steady_clock::now() - st.window_sent_at);
            st.acknowledged += count;
            if (--st.in_flight == 0)
              window_done(self);
          },
          [self, node, seq](caf::error& err) {
            auto& st = self->state;
            if (st.window_seq != seq)
              return;
            st.window_failed = true;
            st.last_error = self->system().render(err);
            st.nodes[node] = federation_actor{}; // reconnect before the retry
            if (--st.in_flight == 0)
              window_done(self);
          });
}

void send_window(link_pointer self) {
  auto& st = self->state;
  if (st.in_flight > 0)
    return;
  if (!st.redis || !st.redis->healthy()) {
    auto client = store::redis_client::connect(st.redis_at);
    if (!client) {
      fail(self, describe(client.error()));
      return;
    }
    st.redis.emplace(std::move(*client));
  }
  // Stay connected to every node of the peer even while idle, so the link's
  // state (and a dead peer) shows at once rather than at the next change.
  for (std::size_t i = 0; i < st.nodes.size(); ++i)
    if (!connect_node(self, i))
      return;
  if (st.link != link_state::up)
    st.last_error.clear(); // it said why the link was not up
  st.link = link_state::up;
  // What the last read held beyond its window comes first; else the outbox.
  auto entries = std::move(st.unsent);
  st.unsent.clear();
  if (entries.empty()) {
    auto read =
        store::wait_outbox(*st.redis, st.peer.id, "0-0", st.read_count, idle_wait);
    if (!read) {
      fail(self, describe(read.error()));
      return;
    }
    entries = std::move(*read);
    if (!entries.empty())
      st.read_count = next_read_count(entries, limits);
  }
  if (entries.empty()) {
    st.backlog->waiting_since(st.backlog_slot, 0);
    self->send(self, atom::tick_v);
    return;
  }
  st.backlog->waiting_since(st.backlog_slot, store::stream_id_ms(entries.front().id));
  // Requests to one node arrive and are applied in the order they were sent;
  // if one fails, the whole window is sent again.
  auto plan = plan_window(
      std::move(entries), st.nodes.size(),
      [&st](const std::string& idcode) { return node_for(st, idcode); }, limits);
  st.unsent = std::move(plan.unsent);
  st.window_last_id = std::move(plan.last_id);
  st.window_failed = false;
  auto seq = ++st.window_seq;
  st.in_flight = 0;
  st.window_sent_at = std::chrono::steady_clock::now();
  for (std::size_t node = 0; node < plan.requests_by_node.size(); ++node)
    for (auto& request : plan.requests_by_node[node])
      send_batch(self, node, seq, std::move(request));
}

} // namespace

peer_link_actor::behavior_type peer_link(link_pointer self, std::string carrier,
                                         config::peer_entry peer,
                                         core::signature_key signing_key,
                                         store::redis_endpoint redis_at,
                                         std::shared_ptr<replication_backlog> backlog,
                                         std::size_t backlog_slot, bool measured) {
  auto& st = self->state;
  st.backlog = std::move(backlog);
  st.backlog_slot = backlog_slot;
  st.read_count = first_read;
  if (measured)
    st.round_trip.emplace();
  st.carrier = std::move(carrier);
  st.signing_key = std::move(signing_key);
  st.nodes.resize(peer.nodes.size());
  st.peer = std::move(peer);
  st.redis_at = std::move(redis_at);
  self->set_down_handler([self](const caf::down_msg& down) {
    auto& st = self->state;
    for (auto& node : st.nodes)
      if (node && node.address() == down.source)
        node = federation_actor{};
    st.link = link_state::down;
    st.backlog->down(st.backlog_slot);
    // CAF 0.17 may drop requests to a node that died without answering them:
    // give up the window now rather than at the ack timeout, and resend it.
    if (st.in_flight > 0) {
      ++st.window_seq;
      st.in_flight = 0;
      fail(self, "a node of " + st.peer.id + " went down with a window in flight");
    }
  });
  self->send(self, atom::tick_v);
  return {
      [self](atom::tick) { send_window(self); },
      [self](atom::status) {
        auto& st = self->state;
        actor_status out;
        out.name = "peer_link/" + st.peer.id;
        out.kind = "peer_link";
        out.mailbox = self->mailbox().size();
        out.processed = st.acknowledged;
        out.last_error = st.last_error;
        out.peer = st.peer.id;
        out.link_state = to_string(st.link);
        if (st.redis && st.redis->healthy()) {
          if (auto depth = store::outbox_depth(*st.redis, st.peer.id))
            out.outbox = *depth;
          if (auto oldest = store::oldest_outbox_ms(*st.redis, st.peer.id);
              oldest && *oldest)
            out.lag_ms = lag_since(*oldest);
        }
        if (st.round_trip) {
          out.latency_counts = st.round_trip->counts();
          out.latency_sum_us = st.round_trip->sum_us();
        }
        out.batches_sent = st.batches_sent;
        out.bytes_sent = st.bytes_sent;
        out.acknowledged = st.acknowledged;
        return out;
      },
  };
}

} // namespace simsync
