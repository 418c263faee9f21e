#pragma once

// Drives carrierd processes through CAF remote actors, as the gateway will:
// a shard's handle comes from the carrier's federation endpoint.

#include "actors/actors.hpp"
#include "config/node_config.hpp"
#include "tests/integration/store/store_fixture.hpp"
#include "tests/support/carrier_process.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <functional>
#include <thread>

namespace simsync::testing {

struct client_config : caf::actor_system_config {
  client_config() {
    add_message_types<caf::id_block::simsync>();
    load<caf::io::middleman>();
  }
};

class carrier_client {
public:
  explicit carrier_client(deployment& d) : deployment_(d), sys_(cfg_), self_(sys_) {}

  /// The carrier's shard that owns `idcode`, as the carrier's first node
  /// knows it (its own shards and its sibling nodes'); asks again while the
  /// node has not joined the sibling that owns it yet.
  account_shard_actor shard(const std::string& carrier, const std::string& idcode) {
    auto index = static_cast<size_t>(config::shard_of(idcode, deployment_.shards()));
    auto& shards = shards_[carrier];
    for (int attempt = 0; attempt < 200; ++attempt) {
      if (index < shards.size() && shards[index])
        return shards[index];
      fetch_shards(carrier);
      if (shards[index])
        return shards[index];
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    throw std::runtime_error(carrier + " does not know shard " + std::to_string(index));
  }

  /// Forget the handles of a carrier whose process was restarted.
  void forget(const std::string& carrier) { shards_.erase(carrier); }

  /// The reply of the shard owning `idcode` at `carrier`, or its error.
  template <class T, class... Ts>
  caf::expected<T> ask(const std::string& carrier, const std::string& idcode,
                       Ts&&... xs) {
    caf::expected<T> out = caf::make_error(ec::none);
    self_
        ->request(shard(carrier, idcode), std::chrono::seconds{30},
                  std::forward<Ts>(xs)...)
        .receive([&](T& value) { out = std::move(value); },
                 [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  void register_line(const std::string& carrier, const std::string& idcode,
                     const std::string& msisdn, std::vector<std::string> peers) {
    store::register_request req{idcode,   msisdn, "898601",        "h",
                                "sealed", 1,      std::move(peers)};
    auto r = ask<store::register_result>(carrier, idcode, atom::register_line_v, req);
    ASSERT_TRUE(r) << describe(r.error());
  }

  store::upload_result upload(const std::string& carrier, const std::string& idcode,
                              const std::string& line,
                              std::vector<core::book_entry> cards,
                              store::upload_mode mode = store::upload_mode::snapshot) {
    store::upload_request req;
    req.idcode = idcode;
    req.line = line;
    req.mode = mode;
    req.cards = std::move(cards);
    req.now_ms = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count());
    auto r = ask<store::upload_result>(carrier, idcode, atom::upload_v, req);
    EXPECT_TRUE(r) << describe(r.error());
    return r ? *r : store::upload_result{};
  }

  /// uid -> card of the live shared store at `carrier`.
  std::map<std::string, std::string>
  shared(const std::string& carrier, const std::string& idcode, const std::string& line) {
    auto r = ask<std::vector<store::stored_card>>(carrier, idcode, atom::read_cards_v,
                                                  idcode, line, store::scope::shared);
    std::map<std::string, std::string> out;
    if (r)
      for (auto& c : *r)
        out[c.uid] = c.record.card;
    return out;
  }

  store::pending_counts counts(const std::string& carrier, const std::string& idcode,
                               const std::string& line) {
    auto r = ask<store::pending_counts>(carrier, idcode, atom::update_v, idcode, line);
    return r ? *r : store::pending_counts{};
  }

  /// Delivers `batch` to the carrier's federation endpoint, as a peer's link
  /// does; the acknowledged entry id, or the error.
  caf::expected<std::string> deliver(const std::string& carrier,
                                     const peer_batch& batch) {
    caf::expected<std::string> out = caf::make_error(ec::none);
    self_->request(endpoint(carrier), std::chrono::seconds{30}, atom::deliver_v, batch)
        .receive([&](std::string& id) { out = std::move(id); },
                 [&](caf::error& err) { out = std::move(err); });
    return out;
  }

private:
  federation_actor endpoint(const std::string& carrier) {
    auto fed = sys_.middleman().remote_actor<federation_actor>(
        "127.0.0.1", static_cast<uint16_t>(deployment_.federation_port(carrier)));
    if (!fed)
      throw std::runtime_error("cannot reach " + carrier + ": " +
                               sys_.render(fed.error()));
    return *fed;
  }

  void fetch_shards(const std::string& carrier) {
    auto fed = endpoint(carrier);
    auto& shards = shards_[carrier];
    shards.assign(static_cast<size_t>(deployment_.shards()), account_shard_actor{});
    self_->request(fed, std::chrono::seconds{10}, atom::shards_v)
        .receive(
            [&](node_shards& known) {
              for (size_t i = 0; i < known.indices.size(); ++i)
                shards[static_cast<size_t>(known.indices[i])] = known.handles[i];
            },
            [&](caf::error& err) {
              throw std::runtime_error("shards of " + carrier + ": " + sys_.render(err));
            });
  }

  deployment& deployment_;
  client_config cfg_;
  caf::actor_system sys_;
  caf::scoped_actor self_;
  std::map<std::string, std::vector<account_shard_actor>> shards_;
};

/// Polls `done` until it holds or `limit` passes; replication is asynchronous.
inline bool eventually(const std::function<bool()>& done,
                       std::chrono::seconds limit = std::chrono::seconds{30}) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return done();
}

} // namespace simsync::testing
