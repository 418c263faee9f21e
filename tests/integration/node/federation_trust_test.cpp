// Who can talk to a node, on real carrierd and redis-server processes:
// - its federation port takes TLS connections with a certificate of the
//   federation's CA only, and offers nothing but the federation endpoint,
//   which takes nothing but batches signed by the peer they claim to be from;
// - its cluster port takes TLS connections with a certificate of its own
//   carrier's cluster CA only.
#include "tests/integration/node/admin_counts.hpp"
#include "tests/integration/node/node_fixture.hpp"

#include "core/record.hpp"
#include "core/stamp.hpp"

#include <httplib.h>

using namespace simsync;
using namespace simsync::testing;

namespace {

/// One card as a peer's outbox carries it: netstrings of uid and record.
std::string batch_of(const std::string& uid, const std::string& name) {
  core::stamped_card rec;
  rec.st = core::stamp{core::unix_now_ms() * core::hlc_logical_per_ms, "carrier-b",
                       "+8618600186000"};
  rec.card =
      "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + name + "\r\nEND:VCARD\r\n";
  auto bytes = core::encode_record(rec);
  return std::to_string(uid.size()) + ":" + uid + std::to_string(bytes.size()) + ":" +
         bytes;
}

/// A CAF system without TLS: plain BASP.
struct plain_config : caf::actor_system_config {
  plain_config() {
    add_message_types<caf::id_block::simsync>();
    load<caf::io::middleman>();
  }
};

/// Whether a connection to 127.0.0.1:port comes up within a few seconds,
/// through `sys`'s middleman (plain or TLS); never waits longer.
template <class Middleman> bool connects(caf::actor_system& sys, Middleman mm, int port) {
  caf::scoped_actor self{sys};
  bool up = false;
  self->request(mm, std::chrono::seconds{5}, caf::connect_atom::value,
                std::string{"127.0.0.1"}, static_cast<uint16_t>(port))
      .receive([&](const caf::node_id&, caf::strong_actor_ptr& ptr,
                   const std::set<std::string>&) { up = ptr != nullptr; },
               [&](caf::error&) { up = false; });
  return up;
}

/// The federation endpoint's refusal counts.
std::map<std::string, int> refusals(deployment& d, const std::string& carrier) {
  return actor_counts(d, carrier, "federation", "refused");
}

struct federation_trust : ::testing::Test {
  deployment d{{"carrier-a", "carrier-b", "carrier-c"}};
  carrier_client client{d};
  const std::string line_a = "+8613800138000", line_a2 = "+8613800138001";
};

} // namespace

TEST_F(federation_trust, a_plain_basp_client_cannot_connect_to_either_port) {
  plain_config cfg;
  caf::actor_system plain{cfg};
  auto mm = plain.middleman().actor_handle();
  EXPECT_FALSE(connects(plain, mm, d.federation_port("carrier-a")));
  EXPECT_FALSE(connects(plain, mm, d.cluster_port("carrier-a")));
}

TEST_F(federation_trust, a_tls_client_without_a_certificate_cannot_connect) {
  client_system anonymous{"", ""};
  auto mm = anonymous.sys.openssl_manager().actor_handle();
  EXPECT_FALSE(connects(anonymous.sys, mm, d.federation_port("carrier-a")));
  EXPECT_FALSE(connects(anonymous.sys, mm, d.cluster_port("carrier-a")));
}

TEST_F(federation_trust, each_port_takes_certificates_of_its_own_ca_only) {
  auto& pki = test_pki::shared();
  // A peer carrier's federation certificate: good for the federation port only.
  client_system peer{pki.federation_ca(), pki.federation_pem("carrier-b")};
  auto peer_mm = peer.sys.openssl_manager().actor_handle();
  EXPECT_TRUE(connects(peer.sys, peer_mm, d.federation_port("carrier-a")));
  EXPECT_FALSE(connects(peer.sys, peer_mm, d.cluster_port("carrier-a")));
  // Another carrier's cluster certificate: refused on carrier-a's cluster port.
  client_system other{pki.cluster_ca("carrier-b"), pki.cluster_pem("carrier-b", "n1")};
  auto other_mm = other.sys.openssl_manager().actor_handle();
  EXPECT_FALSE(connects(other.sys, other_mm, d.cluster_port("carrier-a")));
  EXPECT_FALSE(connects(other.sys, other_mm, d.federation_port("carrier-a")));
  // carrier-a's own cluster certificate: its cluster port, and nothing else.
  client_system own{pki.cluster_ca("carrier-a"), pki.cluster_pem("carrier-a", "n1")};
  auto own_mm = own.sys.openssl_manager().actor_handle();
  EXPECT_TRUE(connects(own.sys, own_mm, d.cluster_port("carrier-a")));
  EXPECT_FALSE(connects(own.sys, own_mm, d.federation_port("carrier-a")));
}

TEST_F(federation_trust, a_peer_reaches_the_federation_endpoint_and_nothing_else) {
  auto& peer = client.federation_client("carrier-b");
  // What the federation port offers is the endpoint, not a router.
  EXPECT_FALSE(caf::openssl::remote_actor<router_actor>(
      peer.sys, "127.0.0.1", static_cast<uint16_t>(d.federation_port("carrier-a"))));
  auto endpoint = caf::openssl::remote_actor<federation_actor>(
      peer.sys, "127.0.0.1", static_cast<uint16_t>(d.federation_port("carrier-a")));
  ASSERT_TRUE(endpoint) << peer.sys.render(endpoint.error());
  // A peer's own code can send the handle anything, whatever its type says.
  auto untyped = caf::actor_cast<caf::actor>(*endpoint);
  // Asked for the carrier's shards, as a node of the carrier would: refused.
  bool got_shards = false;
  caf::error refusal;
  peer.self->request(untyped, std::chrono::seconds{10}, atom::shards_v)
      .receive([&](node_shards&) { got_shards = true; },
               [&](caf::error& err) { refusal = std::move(err); });
  EXPECT_FALSE(got_shards);
  EXPECT_TRUE(refusal);
  // A batch without signing: refused too, whatever it holds.
  peer_batch unsigned_batch{"carrier-b", {{"1-0", person, store::outbox_kind::ask, ""}}};
  peer.self->request(untyped, std::chrono::seconds{10}, atom::deliver_v, unsigned_batch)
      .receive([&](std::string&) { ADD_FAILURE() << "an unsigned batch was taken"; },
               [&](caf::error&) {});
  // Nor what the endpoint hands its applier once a batch is checked and
  // sealed: only the endpoint's own applier takes that.
  store::sealed_delivery sealed{"carrier-b",
                                {{"1-0", person, store::outbox_kind::batch, ""}},
                                {{"u1", "a record"}}};
  peer.self->request(untyped, std::chrono::seconds{10}, atom::deliver_v, sealed)
      .receive([&](std::string&) { ADD_FAILURE() << "a sealed delivery was taken"; },
               [&](caf::error&) {});
}

TEST_F(federation_trust, only_batches_signed_by_the_peer_they_name_are_taken) {
  client.register_line("carrier-a", person, line_a, {"carrier-b"});
  client.register_line("carrier-a", other_person, line_a2, {"carrier-b"});
  std::vector<store::outbox_entry> bad_entries{
      {"1-0", person, store::outbox_kind::batch, batch_of("x1", "Intruder")}};
  auto& c = client.federation_client("carrier-c");
  auto sign = [&](const std::string& signer, const std::string& origin,
                  const std::string& to) {
    return sign_batch(c.sys, signing_key_of(signer), origin, to, bad_entries);
  };
  // carrier-c signs a batch and says it comes from carrier-b: a forged origin.
  auto forged = client.send_signed(
      "carrier-a", sign("carrier-c", "carrier-b", "carrier-a"), "carrier-c");
  EXPECT_FALSE(forged);
  // A carrier the node does not know signs with its own key... which is
  // carrier-c's here, naming itself "carrier-x".
  EXPECT_FALSE(client.send_signed(
      "carrier-a", sign("carrier-c", "carrier-x", "carrier-a"), "carrier-c"));
  // A batch carrier-b signed for carrier-c, replayed at carrier-a.
  EXPECT_FALSE(client.send_signed(
      "carrier-a", sign("carrier-b", "carrier-b", "carrier-c"), "carrier-c"));
  // carrier-b's signature over other entries than those sent.
  auto altered = sign("carrier-b", "carrier-b", "carrier-a");
  altered.payload[altered.payload.size() / 2] ^= 1;
  EXPECT_FALSE(client.send_signed("carrier-a", altered, "carrier-c"));
  // No signature at all.
  auto bare = sign("carrier-b", "carrier-b", "carrier-a");
  bare.signature.clear();
  EXPECT_FALSE(client.send_signed("carrier-a", bare, "carrier-c"));

  // None of them changed anything, and each is counted by its reason.
  EXPECT_TRUE(client.shared("carrier-a", person, line_a).empty());
  std::map<std::string, int> counted;
  eventually([&] {
    counted = refusals(d, "carrier-a");
    return counted["bad-signature"] + counted["unknown-origin"] +
               counted["wrong-destination"] >=
           5;
  });
  EXPECT_EQ(counted["bad-signature"], 3);
  EXPECT_EQ(counted["unknown-origin"], 1);
  EXPECT_EQ(counted["wrong-destination"], 1);
  httplib::Client admin("127.0.0.1", d.admin_port("carrier-a"));
  auto metrics = admin.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("simsync_federation_refused_batches_total"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("reason=\"bad-signature\""), std::string::npos);

  // The link goes on: a good batch from carrier-b, for another account it
  // holds a line of (its hold makes it a sibling first), arrives.
  peer_batch good{
      "carrier-b",
      {{"2-0", other_person, store::outbox_kind::hold, ""},
       {"2-1", other_person, store::outbox_kind::batch, batch_of("g1", "Good News")}}};
  auto acked = client.deliver("carrier-a", good);
  ASSERT_TRUE(acked) << describe(acked.error());
  EXPECT_EQ(*acked, "2-1");
  EXPECT_EQ(client.counts("carrier-a", other_person, line_a2).added, 1u);

  // carrier-b, signing for itself, sends a change for an account it holds no
  // line of (it never asked or held for it): acknowledged, so that its link
  // goes on, but nothing is written, and the node says so in its log.
  peer_batch stranger{
      "carrier-b",
      {{"3-0", person, store::outbox_kind::batch, batch_of("x2", "Stranger")}}};
  acked = client.deliver("carrier-a", stranger);
  ASSERT_TRUE(acked) << describe(acked.error());
  EXPECT_EQ(*acked, "3-0");
  EXPECT_TRUE(client.shared("carrier-a", person, line_a).empty());
  EXPECT_TRUE(eventually([&] {
    return d.log("carrier-a").find("batch_not_sibling peer=carrier-b changes=1") !=
           std::string::npos;
  })) << d.log("carrier-a");
}
