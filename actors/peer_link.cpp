#include "actors/peer_link.hpp"

#include "actors/signed_batch.hpp"
#include "actors/window_plan.hpp"
#include "core/card_compression.hpp"
#include "core/stamp.hpp"
#include "logging/log.hpp"
#include "store/outbox.hpp"
#include "store/sealed_records.hpp"
#include "store/set_aside.hpp"

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
/// A quiet Redis ends a read that timed out at its next wake, which its timer
/// (hz 10) makes at most 100 ms later.
constexpr auto idle_wait = std::chrono::milliseconds{20};
/// Every trim is a write, which Redis syncs to disk (appendfsync always), so
/// a link trims what was acknowledged at most this often rather than after
/// every window, busy or idle: at low rates, where each change is a window of
/// its own and the link is idle between them, a trim per window was as many
/// fsynced writes as the changes themselves. An idle link trims at its next
/// empty read after the interval (idle_wait above). Until then the
/// entries are only read past: a restart resends them, which the peer's apply
/// takes as duplicates.
constexpr auto trim_interval = std::chrono::milliseconds{100};
constexpr auto card_forms_timeout = std::chrono::seconds{10};

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

/// Milliseconds since a Unix time in milliseconds (0 if it is in the future:
/// the stream id comes from Redis's clock, which may run a little ahead).
std::uint64_t lag_since(std::uint64_t unix_ms) {
  auto now_ms = core::unix_now_ms();
  return now_ms > unix_ms ? now_ms - unix_ms : 0;
}

void feed(link_pointer self, link_machine::event what);

/// Node `i` is to be connected again, and asked again what it takes.
void forget_node(peer_link_state& st, std::size_t i) {
  st.nodes[i] = federation_delivery_actor{};
  st.takes_compressed[i].reset();
  st.asking_card_forms[i] = false;
}

/// What node `i` is sent, as actor_status::card_forms names it.
std::string card_form_of(const peer_link_state& st, std::size_t i) {
  if (!st.takes_compressed[i])
    return "unknown";
  return *st.takes_compressed[i] ? std::string(core::compressed_card_form) : "vcard";
}

/// One line when the link comes up or goes down, with why it went down.
void log_change(const peer_link_state& st, link_state was) {
  auto now = link_machine::reported(st.machine.at);
  if (now == was || now == link_state::connecting)
    return;
  if (now == link_state::up)
    logging::info("peer_link_up", {{"carrier", st.carrier}, {"peer", st.peer.id}});
  else
    logging::warn("peer_link_down", {{"carrier", st.carrier},
                                     {"peer", st.peer.id},
                                     {"reason", st.machine.last_error}});
}

/// Asks peer node `i` which card forms it takes, without waiting: it is sent
/// cards as they came until it answers. A node of an older release does not
/// know the question (unexpected_message): it is sent them so for good. An
/// answer lost on the way (a connection CAF replaced) is asked again at the
/// next connect.
void ask_card_forms(link_pointer self, std::size_t i) {
  auto& st = self->state;
  auto node = st.nodes[i];
  st.asking_card_forms[i] = true;
  auto still_asked = [self, i, addr = node.address()] {
    auto& st = self->state;
    return st.nodes[i] && st.nodes[i].address() == addr;
  };
  self->request(caf::actor_cast<federation_actor>(node), card_forms_timeout,
                atom::card_forms_v)
      .then(
          [self, i, still_asked](const std::set<std::string>& forms) {
            if (!still_asked())
              return;
            auto& st = self->state;
            st.asking_card_forms[i] = false;
            st.takes_compressed[i] =
                forms.count(std::string(core::compressed_card_form)) > 0;
          },
          [self, i, still_asked](const caf::error& err) {
            if (!still_asked())
              return;
            auto& st = self->state;
            st.asking_card_forms[i] = false;
            if (err == caf::sec::unexpected_message)
              st.takes_compressed[i] = false;
          });
}

link_machine::event connect(link_pointer self) {
  auto& st = self->state;
  if (!st.redis || !st.redis->healthy()) {
    auto client = store::redis_client::connect(st.redis_at);
    if (!client)
      return link_machine::failed{describe(client.error())};
    st.redis.emplace(std::move(*client));
  }
  // Stay connected to every node of the peer even while idle, so the link's
  // state (and a dead peer) shows at once rather than at the next change.
  for (std::size_t i = 0; i < st.nodes.size(); ++i) {
    if (st.nodes[i])
      continue;
    const auto& at = st.peer.nodes[i].federation;
    auto handle = caf::openssl::remote_actor<federation_delivery_actor>(
        self->system(), at.host, static_cast<uint16_t>(at.port));
    if (!handle)
      return link_machine::failed{"cannot reach " + st.peer.id + " node " +
                                  st.peer.nodes[i].id + " at " + at.to_string() + ": " +
                                  self->system().render(handle.error())};
    self->monitor(*handle);
    st.nodes[i] = std::move(*handle);
  }
  for (std::size_t i = 0; i < st.nodes.size(); ++i)
    if (!st.takes_compressed[i] && !st.asking_card_forms[i])
      ask_card_forms(self, i);
  return link_machine::connected{};
}

/// Whether acknowledged entries wait in the outbox and the last trim is
/// trim_interval old.
bool trim_due(const peer_link_state& st) {
  return st.acked_untrimmed > 0 &&
         std::chrono::steady_clock::now() - st.last_trim >= trim_interval;
}

/// Trims the outbox through the last acknowledged entry.
caf::error trim_acknowledged(link_pointer self) {
  auto& st = self->state;
  auto trimmed = store::trim_outbox(*st.redis, st.peer.id, st.acked_through);
  if (!trimmed)
    return std::move(trimmed.error());
  st.acked_untrimmed = 0;
  st.last_trim = std::chrono::steady_clock::now();
  return {};
}

/// What the last read left unsent, else the outbox after what was sent, waiting
/// up to `wait` for an entry to arrive.
link_machine::event read_outbox(link_pointer self, std::chrono::milliseconds wait) {
  auto& st = self->state;
  if (st.unsent.empty()) {
    const auto& after =
        st.in_flight.empty() ? st.acked_through : st.in_flight.back().last_id;
    auto read = store::read_outbox(*st.redis, st.peer.id, after, st.read_count, wait);
    if (!read)
      return link_machine::failed{describe(read.error())};
    st.unsent = std::move(*read);
    if (!st.unsent.empty())
      st.read_count = next_read_count(st.unsent, limits);
    else if (trim_due(st))
      if (auto err = trim_acknowledged(self))
        return link_machine::failed{describe(err)};
  }
  std::uint64_t oldest_ms = !st.in_flight.empty() ? st.in_flight.front().first_ms
                            : st.unsent.empty()
                                ? 0
                                : store::stream_id_ms(st.unsent.front().id);
  st.backlog->waiting_since(st.backlog_slot, oldest_ms);
  return link_machine::outbox_read{st.unsent.size()};
}

/// Signs and sends one request of the current window to peer node `node`,
/// its cards in the form the node takes.
void send_batch(link_pointer self, std::size_t node,
                std::vector<store::outbox_entry> entries, card_form cards) {
  auto& st = self->state;
  auto window = st.machine.window;
  auto count = entries.size();
  auto sent_at = std::chrono::steady_clock::now();
  st.batches_sent += count;
  for (const auto& e : entries)
    st.bytes_sent += e.batch.size();
  auto batch = sign_batch(self->system(), *st.signing_key, st.carrier, st.peer.id,
                          std::move(entries), cards);
  // No timeout of CAF's own: watch_acks keeps the time instead.
  self->request(st.nodes[node], caf::infinite, atom::deliver_v, std::move(batch))
      .then(
          [self, window, count, sent_at](const std::string&) {
            auto& st = self->state;
            if (st.round_trip && link_machine::in_flight(st.machine, window))
              st.round_trip->record(std::chrono::steady_clock::now() - sent_at);
            feed(self, link_machine::acked{window, count});
          },
          [self, node, window](caf::error& err) {
            feed(self,
                 link_machine::request_failed{window, node, self->system().render(err)});
          });
}

/// Schedules a look at the window in flight (look_at_acks) `in` from now,
/// unless one is scheduled already. The link keeps its ack_timeout this way
/// because a request's own timeout wakes CAF's clock thread twice per request
/// (to set it and to cancel it), about one thread switch in twenty of an
/// edit's at low rates; this is one scheduled message per ack_timeout while
/// windows keep going.
void watch_acks(link_pointer self, caf::timespan in) {
  auto& st = self->state;
  if (st.ack_watch_armed)
    return;
  st.ack_watch_armed = true;
  self->delayed_send(self, in, atom::tick_v, atom::ack_v);
}

/// Gives the windows in flight up (link_machine::ack_overdue) if the oldest has
/// waited ack_timeout; else looks again when it will have.
void look_at_acks(link_pointer self) {
  auto& st = self->state;
  st.ack_watch_armed = false;
  if (st.machine.at != link_machine::phase::sending || st.in_flight.empty())
    return;
  const auto& oldest = st.in_flight.front();
  auto waited = std::chrono::steady_clock::now() - oldest.sent_at;
  if (waited < st.ack_timeout) {
    watch_acks(self, st.ack_timeout - waited);
    return;
  }
  feed(self, link_machine::ack_overdue{
                 oldest.window, "no acknowledgement from " + st.peer.id + " in " +
                                    std::to_string(st.ack_timeout.count()) + " s"});
}

/// Sets `entry` (read sealed; it did not open) aside when its cards were
/// altered where they were stored, rather than sealed with a key this node's
/// keyring lacks (store/set_aside.hpp): the window then fails once, and the
/// link reads on without it. Logged either way: an operator has to look.
void set_aside_altered(link_pointer self, const store::outbox_entry& entry) {
  auto& st = self->state;
  auto altered = store::altered_records(*st.keys->current(), entry);
  if (!altered) {
    logging::error("outbox_entry_does_not_open",
                   {{"carrier", st.carrier},
                    {"peer", st.peer.id},
                    {"entry", entry.id},
                    {"why", "a card sealed with a key this node's keyring lacks (the key "
                            "file can add it), or a batch that does not parse"}});
    return;
  }
  auto done = store::set_aside_entry(*st.redis, st.peer.id, entry, *altered,
                                     "its cards were altered where they were stored",
                                     core::unix_now_ms());
  if (!done) {
    logging::error("outbox_entry_not_set_aside", {{"carrier", st.carrier},
                                                  {"peer", st.peer.id},
                                                  {"entry", entry.id},
                                                  {"error", describe(done.error())}});
    return;
  }
  logging::error("outbox_entry_set_aside", {{"carrier", st.carrier},
                                            {"peer", st.peer.id},
                                            {"entry", entry.id},
                                            {"resent", done->resent},
                                            {"broken", done->broken}});
}

/// Opens the cards of a request's `entries` (read sealed), and expands them
/// for a node that takes them only as they came; an error if one does not
/// open or expand (it was stored damaged, or under a key this node lacks).
/// An entry whose cards were altered where they were stored is set aside
/// first (set_aside_altered), so that the link goes on after the backoff.
caf::error ready_cards(link_pointer self, std::vector<store::outbox_entry>& entries,
                       card_form cards) {
  auto& st = self->state;
  for (auto& e : entries)
    if (auto err = store::unseal_entry(*st.keys->current(), e, st.peer.id)) {
      set_aside_altered(self, e);
      return err;
    }
  if (cards == card_form::compressed)
    return {};
  for (auto& e : entries) {
    if (e.kind != store::outbox_kind::batch)
      continue;
    auto expanded = store::expand_batch(e.batch);
    if (!expanded)
      return caf::make_error(ec::store_corrupt, "outbox entry " + e.id +
                                                    " holds a card that does not expand");
    e.batch = std::move(*expanded);
  }
  return {};
}

link_machine::event send_window(link_pointer self) {
  auto& st = self->state;
  // Requests to one node arrive and are applied in the order they were sent.
  auto plan = plan_window(
      std::move(st.unsent), st.nodes.size(),
      [&st](const std::string& idcode) { return node_for(st, idcode); }, limits);
  st.unsent = std::move(plan.unsent);
  auto& sent = st.in_flight.emplace_back();
  sent.window = st.machine.window;
  sent.last_id = std::move(plan.last_id);
  sent.first_ms = store::stream_id_ms(plan.first_id);
  sent.sent_at = std::chrono::steady_clock::now();
  sent.entries = plan.nothing_to_send;
  // Each request's cards are opened as it goes, so the peer starts on the
  // first while the link opens the next. One that does not open fails the
  // window: the requests already sent are answered into a window the machine
  // has left, and the whole window is sent again after the backoff (the
  // peer's apply is idempotent).
  std::size_t requests = 0;
  for (std::size_t node = 0; node < plan.requests_by_node.size(); ++node) {
    auto cards = st.takes_compressed[node].value_or(false) ? card_form::compressed
                                                           : card_form::as_they_came;
    for (auto& request : plan.requests_by_node[node]) {
      if (auto err = ready_cards(self, request, cards))
        return link_machine::failed{describe(err)};
      sent.entries += request.size();
      send_batch(self, node, std::move(request), cards);
      ++requests;
    }
  }
  if (requests > 0)
    watch_acks(self, st.ack_timeout);
  return link_machine::window_sent{requests, plan.bytes >= limits.request_bytes};
}

/// The oldest window in flight is acknowledged: read on after it, and trim it
/// now if the last trim is old enough (else the next idle read or the next
/// window trims it).
link_machine::event trim(link_pointer self) {
  auto& st = self->state;
  st.acked_through = std::move(st.in_flight.front().last_id);
  st.acked_untrimmed += st.in_flight.front().entries;
  st.in_flight.pop_front();
  if (trim_due(st))
    if (auto err = trim_acknowledged(self))
      return link_machine::failed{describe(err)};
  return link_machine::trimmed{};
}

/// Carries out what a step asks for; returns the outcome of its action.
std::optional<link_machine::event> carry_out(link_pointer self,
                                             const link_machine::effects& todo) {
  auto& st = self->state;
  if (todo.backlog_down)
    st.backlog->down(st.backlog_slot);
  if (todo.drop_unsent) {
    st.unsent.clear();
    st.in_flight.clear();
    st.read_count = first_read;
    // Read (and counted) again as not acknowledged.
    st.acked_through = "0-0";
    st.acked_untrimmed = 0;
  }
  if (todo.forget_node)
    forget_node(st, *todo.forget_node);
  st.acknowledged += todo.acknowledged;
  if (todo.tick_in) {
    // The clock would only delay what is due now.
    if (todo.tick_in->count() == 0)
      self->send(self, atom::tick_v);
    else
      self->delayed_send(self, *todo.tick_in, atom::tick_v);
  }
  switch (todo.then) {
  case link_machine::action::none:
    return std::nullopt;
  case link_machine::action::connect:
    return connect(self);
  case link_machine::action::read_outbox:
    return read_outbox(self, idle_wait);
  case link_machine::action::read_ahead:
    return read_outbox(self, std::chrono::milliseconds{0});
  case link_machine::action::send_window:
    return send_window(self);
  case link_machine::action::trim:
    return trim(self);
  }
  return std::nullopt; // not reached
}

/// Steps the machine with `what`, then with the outcome of each action it asks
/// for, until it waits for something else (an answer, a tick).
void feed(link_pointer self, link_machine::event what) {
  auto& st = self->state;
  auto was = link_machine::reported(st.machine.at);
  for (std::optional<link_machine::event> next = std::move(what); next;) {
    auto [after, todo] = link_machine::step(std::move(st.machine), *next);
    st.machine = std::move(after);
    next = carry_out(self, todo);
  }
  log_change(st, was);
}

} // namespace

peer_link_actor::behavior_type
peer_link(link_pointer self, std::string carrier, config::peer_entry peer,
          core::signature_key signing_key, store::redis_endpoint redis_at,
          std::shared_ptr<const core::shared_keyring> keys,
          std::shared_ptr<replication_backlog> backlog, std::size_t backlog_slot,
          std::chrono::seconds ack_timeout, bool measured) {
  auto& st = self->state;
  st.ack_timeout = ack_timeout;
  st.backlog = std::move(backlog);
  st.backlog_slot = backlog_slot;
  st.read_count = first_read;
  if (measured)
    st.round_trip.emplace();
  st.carrier = std::move(carrier);
  st.signing_key = std::move(signing_key);
  st.nodes.resize(peer.nodes.size());
  st.takes_compressed.resize(peer.nodes.size());
  st.asking_card_forms.assign(peer.nodes.size(), false);
  st.peer = std::move(peer);
  st.redis_at = std::move(redis_at);
  st.keys = std::move(keys);
  self->set_down_handler([self](const caf::down_msg& down) {
    auto& st = self->state;
    for (std::size_t i = 0; i < st.nodes.size(); ++i)
      if (st.nodes[i] && st.nodes[i].address() == down.source)
        forget_node(st, i);
    feed(self, link_machine::node_down{"a node of " + st.peer.id +
                                       " went down with a window in flight"});
  });
  self->send(self, atom::tick_v);
  return {
      [self](atom::tick) { feed(self, link_machine::tick{}); },
      [self](atom::tick, atom::ack) { look_at_acks(self); },
      [self](atom::status) {
        auto& st = self->state;
        actor_status out;
        out.name = "peer_link/" + st.peer.id;
        out.kind = "peer_link";
        out.mailbox = self->mailbox().size();
        out.processed = st.acknowledged;
        out.last_error = st.machine.last_error;
        out.peer = st.peer.id;
        out.link_state = to_string(link_machine::reported(st.machine.at));
        if (st.redis && st.redis->healthy()) {
          if (auto depth = store::outbox_depth(*st.redis, st.peer.id))
            out.outbox = *depth - std::min(*depth, st.acked_untrimmed);
          if (auto oldest =
                  store::oldest_outbox_ms(*st.redis, st.peer.id, st.acked_through);
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
        for (std::size_t i = 0; i < st.peer.nodes.size(); ++i)
          out.card_forms[st.peer.nodes[i].id] = card_form_of(st, i);
        return out;
      },
  };
}

} // namespace simsync
