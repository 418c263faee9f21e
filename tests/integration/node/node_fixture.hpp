#pragma once

// Drives carrierd processes through CAF remote actors, as the gateway and
// the carrier's other nodes do: a shard's handle comes from the router of the
// carrier's first node, on its cluster port (TLS with a certificate of that
// carrier's cluster CA); batches go to a node's federation endpoint signed
// with their origin carrier's key, as a peer link sends them.

#include "actors/actors.hpp"
#include "actors/signed_batch.hpp"
#include "config/node_config.hpp"
#include "tests/integration/store/store_fixture.hpp"
#include "tests/support/carrier_process.hpp"
#include "tests/support/test_pki.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/all.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

namespace simsync::testing {

/// A test's CAF system with a TLS identity: a CA and one PEM file holding a
/// certificate and its key (both empty: TLS without certificates).
struct client_config : caf::actor_system_config {
  client_config(const std::string& ca_file, const std::string& pem) {
    add_message_types<caf::id_block::simsync>();
    load<caf::io::middleman>();
    load<caf::openssl::manager>();
    openssl_cafile = ca_file;
    openssl_certificate = pem;
    openssl_key = pem;
  }
};

/// An actor system and a scoped actor in it.
struct client_system {
  client_system(const std::string& ca_file, const std::string& pem)
      : cfg(ca_file, pem), sys(cfg), self(sys) {}
  client_config cfg;
  caf::actor_system sys;
  caf::scoped_actor self;
};

/// `origin`'s signing key from the test PKI.
inline core::signature_key signing_key_of(const std::string& origin) {
  auto key = core::signature_key::private_from_pem(
      file_text(test_pki::shared().signing_key(origin)));
  if (!key)
    throw std::runtime_error("no signing key for " + origin);
  return *key;
}

class carrier_client {
public:
  explicit carrier_client(deployment& d) : deployment_(d) {}

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
    auto handle = shard(carrier, idcode);
    cluster(carrier)
        .self->request(handle, std::chrono::seconds{30}, std::forward<Ts>(xs)...)
        .receive([&](T& value) { out = std::move(value); },
                 [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  /// The proof every test line presents: the token hash it registers with.
  const std::string proof = "h";

  void register_line(const std::string& carrier, const std::string& idcode,
                     const std::string& line, std::vector<std::string> peers) {
    store::register_request req{idcode,   line, "iccid-hash",     proof,
                                "sealed", 1,    std::move(peers), "sealed-msisdn"};
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
    req.token_hash = proof;
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
    auto r = ask<std::vector<store::stored_card>>(
        carrier, idcode, atom::read_cards_v, idcode, line, proof, store::scope::shared);
    std::map<std::string, std::string> out;
    if (r)
      for (auto& c : *r)
        out[c.uid] = c.record.card;
    return out;
  }

  store::pending_counts counts(const std::string& carrier, const std::string& idcode,
                               const std::string& line) {
    auto r =
        ask<store::pending_counts>(carrier, idcode, atom::update_v, idcode, line, proof);
    return r ? *r : store::pending_counts{};
  }

  /// Delivers `batch` to the carrier's federation endpoint, signed by its
  /// origin as a peer's link does; the acknowledged entry id, or the error.
  caf::expected<std::string> deliver(const std::string& carrier,
                                     const peer_batch& batch) {
    auto& client = federation_client(batch.origin);
    return send_signed(carrier, sign_batch(client.sys, signing_key_of(batch.origin),
                                           batch.origin, carrier, batch.entries));
  }

  /// Sends an already signed batch to the carrier's federation endpoint, from
  /// a TLS client holding the federation certificate of `batch.origin` (or of
  /// `as`, when given).
  caf::expected<std::string> send_signed(const std::string& carrier,
                                         const signed_batch& batch,
                                         const std::string& as = {}) {
    auto& client = federation_client(as.empty() ? batch.origin : as);
    auto endpoint = caf::openssl::remote_actor<federation_actor>(
        client.sys, "127.0.0.1",
        static_cast<uint16_t>(deployment_.federation_port(carrier)));
    if (!endpoint)
      return std::move(endpoint.error());
    caf::expected<std::string> out = caf::make_error(ec::none);
    client.self->request(*endpoint, std::chrono::seconds{30}, atom::deliver_v, batch)
        .receive([&](std::string& id) { out = std::move(id); },
                 [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  /// A TLS client of the federation holding `carrier`'s certificate.
  client_system& federation_client(const std::string& carrier) {
    auto& client = federation_[carrier];
    if (!client)
      client = std::make_unique<client_system>(
          test_pki::shared().federation_ca(), test_pki::shared().federation_pem(carrier));
    return *client;
  }

private:
  /// A TLS client of the carrier's cluster (holding its first node's certificate).
  client_system& cluster(const std::string& carrier) {
    auto& client = cluster_[carrier];
    if (!client)
      client =
          std::make_unique<client_system>(test_pki::shared().cluster_ca(carrier),
                                          test_pki::shared().cluster_pem(carrier, "n1"));
    return *client;
  }

  router_actor router(const std::string& carrier) {
    auto& client = cluster(carrier);
    auto found = caf::openssl::remote_actor<router_actor>(
        client.sys, "127.0.0.1",
        static_cast<uint16_t>(deployment_.cluster_port(carrier)));
    if (!found)
      throw std::runtime_error("cannot reach " + carrier + ": " +
                               client.sys.render(found.error()));
    return *found;
  }

  void fetch_shards(const std::string& carrier) {
    auto fed = router(carrier);
    auto& shards = shards_[carrier];
    shards.assign(static_cast<size_t>(deployment_.shards()), account_shard_actor{});
    cluster(carrier)
        .self->request(fed, std::chrono::seconds{10}, atom::shards_v)
        .receive(
            [&](node_shards& known) {
              for (size_t i = 0; i < known.indices.size(); ++i)
                shards[static_cast<size_t>(known.indices[i])] = known.handles[i];
            },
            [&](caf::error& err) {
              throw std::runtime_error("shards of " + carrier + ": " +
                                       cluster(carrier).sys.render(err));
            });
  }

  deployment& deployment_;
  std::map<std::string, std::unique_ptr<client_system>> cluster_;
  std::map<std::string, std::unique_ptr<client_system>> federation_;
  std::map<std::string, std::vector<account_shard_actor>> shards_;
};

/// The other carriers of a three-carrier deployment: a registration at
/// `self` asks each of them about the person.
inline std::vector<std::string> peers_of(const std::string& self) {
  std::vector<std::string> out;
  for (std::string c : {"carrier-a", "carrier-b", "carrier-c"})
    if (c != self)
      out.push_back(c);
  return out;
}

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
