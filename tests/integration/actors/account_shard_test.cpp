// account_shard on CAF's real scheduler, as a detached actor over a real redis-server.
#include "actors/account_shard.hpp"
#include "core/stamp.hpp"
#include "tests/integration/store/store_fixture.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

using namespace simsync;
using namespace simsync::testing;

namespace {

struct shard_config : caf::actor_system_config {
  shard_config() { add_message_types<caf::id_block::simsync>(); }
};

struct account_shard_fixture : ::testing::Test {
  account_shard_fixture()
      : sys(cfg),
        shard(sys.spawn<caf::detached>(
            account_shard, redis.endpoint(), "carrier-a", 0,
            std::shared_ptr<const core::shared_keyring>{test_keyring()},
            std::shared_ptr<const replication_backlog>{backlog}, max_lag,
            store::history_policy{}, std::vector<std::string>{"carrier-b"}, true)),
        self(sys) {}

  ~account_shard_fixture() override {
    self->send_exit(shard, caf::exit_reason::user_shutdown);
  }

  /// The shard's reply to `xs`, or the error it answered with.
  template <class T, class... Ts> caf::expected<T> ask(Ts&&... xs) {
    caf::expected<T> out = caf::make_error(ec::none);
    self->request(shard, std::chrono::seconds{10}, std::forward<Ts>(xs)...)
        .receive([&](T& value) { out = std::move(value); },
                 [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  redis_server redis;
  /// This node's links, as the shard sees them: one peer, carrier-b.
  std::shared_ptr<replication_backlog> backlog =
      std::make_shared<replication_backlog>(std::vector<std::string>{"carrier-b"});
  static constexpr std::chrono::milliseconds max_lag{2000};
  shard_config cfg;
  caf::actor_system sys;
  account_shard_actor shard;
  caf::scoped_actor self;
};

} // namespace

TEST_F(account_shard_fixture, runs_the_flows_for_its_accounts) {
  for (const auto& line : {line1, line2}) {
    store::register_request req{person, line, "898601", "h", "sealed", 1, {}, "m"};
    auto r = ask<store::register_result>(atom::register_line_v, req);
    ASSERT_TRUE(r) << describe(r.error());
  }
  store::upload_request up;
  up.idcode = person;
  up.line = line1;
  up.token_hash = "h"; // what the registration stored
  up.cards = {make_card("u1", "Li"), make_card("u2", "Wang")};
  up.now_ms = 1'700'000'000'000;
  auto uploaded = ask<store::upload_result>(atom::upload_v, up);
  ASSERT_TRUE(uploaded) << describe(uploaded.error());
  EXPECT_EQ(uploaded->added, 2u);

  auto counts =
      ask<store::pending_counts>(atom::update_v, person, line2, std::string("h"));
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->added, 2u);
  auto fetched = ask<store::pending_fetch>(
      atom::fetch_v, store::pending_request{person, line2, "h", 0, "", ""});
  ASSERT_TRUE(fetched);
  ASSERT_EQ(fetched->changes.size(), 2u);
  auto acked =
      ask<store::ack_progress>(atom::ack_v, person, line2, std::string("h"),
                               fetched->cursor, store::decision::apply, std::uint32_t{0});
  ASSERT_TRUE(acked);
  EXPECT_EQ(acked->acknowledged, 2u);
  EXPECT_TRUE(acked->finished);
  auto cards = ask<std::vector<store::stored_card>>(
      atom::read_cards_v, person, line2, std::string("h"), store::scope::shared);
  ASSERT_TRUE(cards);
  EXPECT_EQ(cards->size(), 2u);
  auto line = ask<caf::optional<store::line_info>>(atom::find_line_v, line1);
  ASSERT_TRUE(line);
  ASSERT_TRUE(*line);
  EXPECT_EQ((*line)->idcode, person);
}

TEST_F(account_shard_fixture, refuses_shared_uploads_while_replication_is_behind) {
  store::register_request reg{person, line1, "898601", "h", "sealed", 1, {}, "m"};
  ASSERT_TRUE(ask<store::register_result>(atom::register_line_v, reg));
  store::upload_request up;
  up.idcode = person;
  up.line = line1;
  up.token_hash = "h"; // what the registration stored
  up.cards = {make_card("u1", "Li")};
  up.now_ms = 1'700'000'000'000;
  auto now = core::unix_now_ms();
  backlog->waiting_since(0, now - 5000); // carrier-b's link is up, 5 s behind

  auto refused = ask<store::upload_result>(atom::upload_v, up);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), ec::replication_behind);
  EXPECT_NE(describe(refused.error()).find("replication to carrier-b is"),
            std::string::npos)
      << describe(refused.error());
  auto cards = ask<std::vector<store::stored_card>>(
      atom::read_cards_v, person, line1, std::string("h"), store::scope::shared);
  ASSERT_TRUE(cards);
  EXPECT_TRUE(cards->empty()); // nothing was stored

  up.scope = store::scope::private_backup; // never replicated: taken
  EXPECT_TRUE(ask<store::upload_result>(atom::upload_v, up));

  backlog->down(0); // a peer that is away is owed its outbox, not a refusal
  up.scope = store::scope::shared;
  auto taken = ask<store::upload_result>(atom::upload_v, up);
  ASSERT_TRUE(taken) << describe(taken.error());
  EXPECT_EQ(taken->added, 1u);
}

TEST_F(account_shard_fixture, a_store_error_reaches_the_caller_as_its_code) {
  auto r = ask<store::pending_fetch>(
      atom::fetch_v, store::pending_request{person, line1, "h", 0, "", ""});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ec::bad_token); // no such line: no token opens it
}

TEST_F(account_shard_fixture, reconnects_after_redis_comes_back) {
  store::register_request req{person, line1, "898601", "h", "sealed", 1, {}, "m"};
  ASSERT_TRUE(ask<store::register_result>(atom::register_line_v, req));
  redis.restart();
  // The connection the old server closed is opened again before the next
  // request: nothing was in flight on it, so that request does not fail.
  auto r = ask<store::register_result>(atom::register_line_v, req);
  ASSERT_TRUE(r) << describe(r.error());
  EXPECT_TRUE(r->account_created); // the restarted server kept no data (no AOF)
}
