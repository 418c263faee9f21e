// Cards between carriers travel compressed to a node that says it takes them
// (atom::card_forms) and as they came to any other: a node of an older
// release never learns of compressed cards. A compressed card from a peer
// is checked like any other, expanded within the card limit, and stored as
// it came. Real carrierd and redis-server processes; a peer node is either
// real or, to see what a link sends, an endpoint of the test's own on the
// peer's federation port.
#include "tests/integration/node/admin_counts.hpp"
#include "tests/integration/node/node_fixture.hpp"

#include "core/card_compression.hpp"
#include "core/record.hpp"
#include "core/stamp.hpp"
#include "store/account_calls.hpp"
#include "store/keys.hpp"
#include "store/netstrings.hpp"
#include "store/sealed_records.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/openssl/publish.hpp>

#include <atomic>
#include <mutex>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";

/// One card from carrier-b as its outbox carries it, the card in `stored`
/// form: netstrings of uid and record.
std::string batch_of(const std::string& uid, const std::string& stored) {
  core::stamped_card rec;
  rec.st = core::stamp{core::unix_now_ms() * core::hlc_logical_per_ms, "carrier-b",
                       "+8618600186000"};
  rec.card = stored;
  std::string out;
  store::append_netstring(out, uid);
  store::append_netstring(out, core::encode_record(rec));
  return out;
}

std::string card_named(const std::string& uid, const std::string& name) {
  return "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + name +
         "\r\nEND:VCARD\r\n";
}

/// `card` compressed otherwise than this build compresses it, but in the
/// same form: one stored deflate block (no compression at all) after the mark.
std::string stored_block_form(const std::string& card) {
  auto n = static_cast<std::uint16_t>(card.size());
  std::string out{core::compressed_card_mark, '\x01'}; // final block, stored
  for (std::uint16_t v : {n, static_cast<std::uint16_t>(~n)}) {
    out += static_cast<char>(v & 0xff);
    out += static_cast<char>(v >> 8);
  }
  return out + card;
}

/// Every entry a test's endpoint was sent, as it travelled.
struct wire_log {
  caf::actor_system* sys = nullptr;
  std::mutex m;
  std::vector<wire_entry> entries;
  std::atomic<int> unexpected{0}; ///< questions an older node did not know

  std::string take(const signed_batch& batch) {
    std::vector<wire_entry> wire;
    caf::binary_deserializer source{*sys, batch.payload.data(), batch.payload.size()};
    if (source(wire) || wire.empty())
      return {};
    std::lock_guard<std::mutex> lock{m};
    entries.insert(entries.end(), wire.begin(), wire.end());
    return wire.back().id;
  }

  /// The batch entry (kind batch or compressed batch) that carried `uid`.
  std::optional<wire_entry> batch_with(const std::string& uid) {
    std::lock_guard<std::mutex> lock{m};
    for (const auto& e : entries) {
      if (e.kind != static_cast<std::int32_t>(wire_kind::batch) &&
          e.kind != static_cast<std::int32_t>(wire_kind::compressed_batch))
        continue;
      auto items = store::split_netstrings(e.batch);
      if (items && !items->empty() && items->front() == uid)
        return e;
    }
    return std::nullopt;
  }
};

/// A node of a release before card forms: it takes deliveries, and does not
/// know what card_forms asks; it answers as CAF does by default (and
/// counts the questions: each is a line in that node's output).
federation_delivery_actor::behavior_type
older_node(federation_delivery_actor::pointer self, std::shared_ptr<wire_log> log) {
  self->set_default_handler(
      [log](caf::scheduled_actor*, caf::message_view&) -> caf::result<caf::message> {
        ++log->unexpected;
        return caf::sec::unexpected_message;
      });
  return {
      [log](atom::deliver, const signed_batch& batch) { return log->take(batch); },
      [](atom::status) { return actor_status{}; },
  };
}

/// A node of this release, as far as a link can tell.
federation_actor::behavior_type current_node(std::shared_ptr<wire_log> log) {
  return {
      [log](atom::deliver, const signed_batch& batch) { return log->take(batch); },
      [](atom::status) { return actor_status{}; },
      [](atom::card_forms) {
        return std::set<std::string>{std::string(core::compressed_card_form)};
      },
  };
}

/// An account at carrier-a whose sibling is carrier-b: its hold (which a
/// registration at b would send) makes it so.
void account_with_sibling_b(carrier_client& client) {
  client.register_line("carrier-a", person, line_a, {"carrier-b"});
  EXPECT_TRUE(client.deliver(
      "carrier-a",
      peer_batch{"carrier-b", {{"0-1", person, store::outbox_kind::hold, ""}}}));
}

/// What carrier-a's link did with a peer node of the test's own.
struct link_seen {
  std::optional<wire_entry> sent; ///< the batch entry that carried the second card
  int unknown_questions = 0;      ///< questions the node did not know
  /// What carrier-a's /admin/actors says the node is sent (its link's card_forms).
  std::string reported_form;
};

/// carrier-a with one account, carrier-b its sibling; carrier-b's node is
/// stopped and the test's endpoint `Node` takes its federation port. Two
/// cards are uploaded at a, one after the other: the link asks what a node
/// takes when it connects, and sends its first window before the answer is in.
template <class Node> link_seen sent_to(Node node) {
  deployment d{{"carrier-a", "carrier-b"}};
  carrier_client client{d};
  account_with_sibling_b(client);
  d.stop("carrier-b", SIGTERM);
  auto& peer = client.federation_client("carrier-b");
  auto log = std::make_shared<wire_log>();
  log->sys = &peer.sys;
  auto endpoint = peer.sys.spawn(node, log);
  auto port = caf::openssl::publish(
      endpoint, static_cast<uint16_t>(d.federation_port("carrier-b")), "127.0.0.1", true);
  EXPECT_TRUE(port) << peer.sys.render(port.error());
  link_seen seen;
  for (const auto& uid : {"c1", "c2"}) {
    EXPECT_EQ(client
                  .upload("carrier-a", person, line_a,
                          {make_card(uid, "Compressed Once")}, store::upload_mode::delta)
                  .added,
              1u);
    seen.sent.reset();
    eventually([&] { return (seen.sent = log->batch_with(uid)).has_value(); });
  }
  // The admin port's snapshot is taken once a second.
  eventually([&] {
    for (const auto& actor : admin_actors(d, "carrier-a"))
      if (actor.value("name", "") == "peer_link/carrier-b")
        for (const auto& form : actor.value("card_forms", nlohmann::json::object()))
          seen.reported_form = form.template get<std::string>();
    return seen.reported_form != "" && seen.reported_form != "unknown";
  });
  // Time for a link that asked again at every step to show it.
  std::this_thread::sleep_for(std::chrono::milliseconds{500});
  caf::anon_send_exit(endpoint, caf::exit_reason::user_shutdown);
  seen.unknown_questions = log->unexpected.load();
  return seen;
}

/// The card of the first record of `batch`, as it travelled.
std::string first_card(const std::string& batch) {
  auto items = store::split_netstrings(batch);
  if (!items || items->size() < 2)
    return {};
  auto record = core::decode_record((*items)[1]);
  return record ? record->card : std::string{};
}

} // namespace

TEST(card_forms, a_node_that_takes_compressed_cards_is_sent_them_as_stored) {
  auto seen = sent_to(current_node);
  EXPECT_EQ(seen.reported_form, core::compressed_card_form);
  const auto& sent = seen.sent;
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->kind, static_cast<std::int32_t>(wire_kind::compressed_batch));
  auto card = first_card(sent->batch);
  EXPECT_TRUE(core::is_compressed_card(card));
  EXPECT_EQ(core::expand_card(card), make_card("c2", "Compressed Once").card);
}

TEST(card_forms, a_node_of_an_older_release_is_sent_cards_as_they_came) {
  auto seen = sent_to(older_node);
  // Asked once when the link connected, not again at every step: each
  // question is a line in that node's output.
  EXPECT_EQ(seen.unknown_questions, 1);
  // An operator sees that the node is sent plain cards.
  EXPECT_EQ(seen.reported_form, "vcard");
  const auto& sent = seen.sent;
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->kind, static_cast<std::int32_t>(wire_kind::batch));
  EXPECT_EQ(first_card(sent->batch), make_card("c2", "Compressed Once").card);
}

TEST(card_forms, a_peers_compressed_cards_are_checked_and_stored_as_they_came) {
  deployment d{{"carrier-a", "carrier-b"}};
  carrier_client client{d};
  account_with_sibling_b(client);
  // What carrier-a's endpoint says it takes.
  auto& peer = client.federation_client("carrier-b");
  auto endpoint = caf::openssl::remote_actor<federation_actor>(
      peer.sys, "127.0.0.1", static_cast<uint16_t>(d.federation_port("carrier-a")));
  ASSERT_TRUE(endpoint) << peer.sys.render(endpoint.error());
  std::set<std::string> forms;
  peer.self->request(*endpoint, std::chrono::seconds{10}, atom::card_forms_v)
      .receive([&](std::set<std::string>& taken) { forms = std::move(taken); },
               [&](caf::error& err) { ADD_FAILURE() << peer.sys.render(err); });
  EXPECT_EQ(forms.count(std::string(core::compressed_card_form)), 1u);

  const auto plain = card_named("p1", "Plain");
  const auto sent = stored_block_form(card_named("s1", "Sent Compressed"));
  auto bomb = core::compress_card(card_named("b1", std::string(2u << 20, 'x')));
  auto damaged = core::compress_card(card_named("d1", "Damaged"));
  damaged.resize(damaged.size() - 3);
  auto two_cards = core::compress_card(card_named("t1", "One") + card_named("t2", "Two"));
  std::vector<store::outbox_entry> entries{
      {"1-0", person, store::outbox_kind::batch, batch_of("s1", sent)},
      {"2-0", person, store::outbox_kind::batch, batch_of("b1", bomb)},
      {"3-0", person, store::outbox_kind::batch, batch_of("d1", damaged)},
      {"4-0", person, store::outbox_kind::batch, batch_of("t1", two_cards)},
      {"5-0", person, store::outbox_kind::batch, batch_of("p1", plain)}};
  auto acked = client.send_signed(
      "carrier-a", sign_batch(peer.sys, signing_key_of("carrier-b"), "carrier-b",
                              "carrier-a", entries, card_form::compressed));
  ASSERT_TRUE(acked) << describe(acked.error());
  EXPECT_EQ(*acked, "5-0");

  // The good cards read as they came; the others changed nothing.
  auto shared = client.shared("carrier-a", person, line_a);
  EXPECT_EQ(shared.size(), 2u);
  EXPECT_EQ(shared["s1"], card_named("s1", "Sent Compressed"));
  EXPECT_EQ(shared["p1"], plain);
  // The compressed card is kept in the form it was sent, not compressed again.
  auto redis = d.redis("carrier-a").connect();
  auto stored = redis.call({"HGET", "shared:{" + person + "}", "s1"});
  ASSERT_TRUE(stored);
  auto keys = d.keys("carrier-a");
  auto table = redis.call({"HGETALL", store::keys::origins(person)});
  ASSERT_TRUE(table);
  const auto names = store::origin_names_of(table->view());
  std::string written_out; // its origin is a number in the account's table
  ASSERT_TRUE(core::append_record_written_out(written_out, stored->view().str(), &names));
  auto unsealed = store::unseal_record(keys, written_out, person);
  ASSERT_TRUE(unsealed);
  EXPECT_EQ(unsealed->substr(core::record_body_at(*unsealed)), sent);

  // Each bad one is a dead letter, with why.
  auto letters = redis.call({"XRANGE", store::keys::dead_letters("carrier-b"), "-", "+"});
  ASSERT_TRUE(letters);
  std::vector<std::string> reasons;
  for (std::size_t i = 0; i < letters->view().size(); ++i) {
    auto fields = letters->view()[i][1];
    for (std::size_t k = 0; k + 1 < fields.size(); k += 2)
      if (fields[k].str() == "reason")
        reasons.emplace_back(fields[k + 1].str());
  }
  ASSERT_EQ(reasons.size(), 3u);
  EXPECT_NE(reasons[0].find("expands to more than"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[1].find("does not expand"), std::string::npos) << reasons[1];
  EXPECT_NE(reasons[2].find("more than one vCard"), std::string::npos) << reasons[2];
}
