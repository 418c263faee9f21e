#include "actors/introspector.hpp"

#include "core/stamp.hpp"
#include "metrics/process_sample.hpp"
#include "simsync_version.hpp"
#include "store/dead_letters.hpp"
#include "store/keys.hpp"

#include <charconv>

namespace simsync {

namespace {

using introspector_pointer = introspector_actor::stateful_pointer<introspector_state>;

constexpr auto status_timeout = std::chrono::seconds{3};

/// A numeric field of Redis's INFO text ("name:value\r\n"), 0 if absent.
std::uint64_t info_field(std::string_view info, std::string_view name) {
  auto at = info.find(std::string{name} + ":");
  if (at == std::string_view::npos)
    return 0;
  auto from = info.data() + at + name.size() + 1;
  std::uint64_t value = 0;
  std::from_chars(from, info.data() + info.size(), value);
  return value;
}

metrics::redis_view probe_redis(introspector_pointer self) {
  auto& st = self->state;
  metrics::redis_view out;
  out.address = st.redis_at.to_string();
  if (!st.redis || !st.redis->healthy()) {
    st.redis.reset();
    auto client = store::redis_client::connect(st.redis_at);
    if (!client) {
      out.error = describe(client.error());
      return out;
    }
    st.redis.emplace(std::move(*client));
  }
  auto sent = std::chrono::steady_clock::now();
  auto pong = st.redis->call({"PING"});
  if (!pong) {
    out.error = describe(pong.error());
    return out;
  }
  out.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sent)
          .count();
  // Per peer: its dead letters, then this node's entries set aside for it.
  std::vector<std::string> stream_keys;
  for (const auto& peer : st.peers) {
    stream_keys.push_back(store::keys::dead_letters(peer));
    stream_keys.push_back(store::keys::set_aside(peer));
  }
  std::vector<store::command> commands{{"INFO"}, {"DBSIZE"}};
  for (const auto& key : stream_keys)
    commands.push_back({"XLEN", key});
  auto replies = st.redis->pipeline(commands);
  if (!replies) {
    out.error = describe(replies.error());
    return out;
  }
  auto info = (*replies)[0].view().str();
  out.used_memory = info_field(info, "used_memory");
  out.commands = info_field(info, "total_commands_processed");
  out.keys = static_cast<std::uint64_t>((*replies)[1].view().integer());
  auto count = [&](std::size_t at) {
    return static_cast<std::uint64_t>((*replies)[at].view().integer());
  };
  for (std::size_t i = 0; i < st.peers.size(); ++i) {
    out.dead_letters[st.peers[i]] = count(2 + 2 * i);
    out.set_aside[st.peers[i]] = count(3 + 2 * i);
  }
  out.up = true;
  return out;
}

void publish(introspector_pointer self, std::vector<actor_status> actors) {
  auto& st = self->state;
  metrics::node_sample sample;
  sample.carrier = st.carrier;
  sample.node = st.node_id;
  sample.version = version;
  sample.process = metrics::read_process_sample();
  sample.at = std::chrono::steady_clock::now();
  sample.uptime_s = std::chrono::duration<double>(sample.at - st.started).count();
  sample.unix_ms = static_cast<std::int64_t>(core::unix_now_ms());
  sample.actors = std::move(actors);
  sample.redis = probe_redis(self);
  if (st.gateway) {
    sample.gateway = st.gateway->take();
    // The gateway's own calls to the node's Redis, beside the shards'.
    for (auto& store : sample.gateway->store)
      sample.actors.push_back(std::move(store));
  }
  auto snapshot = std::make_shared<const metrics::node_snapshot>(
      metrics::summarize(std::move(sample), st.previous.get()));
  st.board->publish(snapshot);
  st.previous = std::move(snapshot);
}

void take_sample(introspector_pointer self) {
  self->request(self->state.node, status_timeout, atom::status_v)
      .then(
          [self](std::vector<actor_status>& actors) {
            publish(self, std::move(actors));
            self->delayed_send(self, introspection_interval, atom::tick_v);
          },
          [self](caf::error& err) {
            actor_status missing;
            missing.name = missing.kind = "node";
            missing.last_error = "no status: " + self->system().render(err);
            publish(self, {std::move(missing)});
            self->delayed_send(self, introspection_interval, atom::tick_v);
          });
}

} // namespace

introspector_actor::behavior_type
introspector(introspector_pointer self, std::string carrier, std::string node_id,
             node_actor node, store::redis_endpoint redis_at,
             std::vector<std::string> peers,
             std::shared_ptr<metrics::request_meter> gateway,
             std::shared_ptr<metrics::snapshot_board> board) {
  auto& st = self->state;
  st.carrier = std::move(carrier);
  st.node_id = std::move(node_id);
  st.node = std::move(node);
  st.redis_at = std::move(redis_at);
  st.peers = std::move(peers);
  st.gateway = std::move(gateway);
  st.board = std::move(board);
  // It lives as long as the node it watches.
  self->link_to(st.node);
  self->send(self, atom::tick_v);
  return {
      [self](atom::tick) { take_sample(self); },
  };
}

} // namespace simsync
