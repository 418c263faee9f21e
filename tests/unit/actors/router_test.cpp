// The router's routing and acknowledgement logic, deterministic:
// CAF's test_coordinator runs every message on the test's thread and fakes
// time. The shards are test doubles that record what reached them.
#include "actors/router.hpp"
#include "actors/user_directory.hpp"

#include "core/record.hpp"
#include "core/stamp.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <optional>

using namespace simsync;

namespace {

/// What a test-double shard saw, and how it answers.
struct shard_log {
  /// Per entry: "replicate <idcode> <batch>", "ask <idcode> <peer>", "hold
  /// <idcode> <peer>", "retire <idcode> <peer>" or "dead <idcode> <peer>:
  /// <reason>", in the
  /// order the shard got them.
  std::vector<std::string> calls;
  std::size_t requests = 0; ///< messages that carried them
  bool fail = false;        ///< answer store_unavailable
  bool silent = false;      ///< never answer (a shard that never persists)
};

/// A well-formed batch: one card whose uid (and name, unless given) is `uid`, stamped at
/// a fixed instant in the past (2023) so that the same uid gives the same bytes.
std::string batch_of(const std::string& uid, std::uint64_t hlc = 1'700'000'000'000'000,
                     const std::string& name = "") {
  core::stamped_card rec;
  rec.st = core::stamp{hlc, "carrier-b", "+8618600000000"};
  rec.card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid +
             "\r\nFN:" + (name.empty() ? uid : name) + "\r\nEND:VCARD\r\n";
  auto bytes = core::encode_record(rec);
  return std::to_string(uid.size()) + ":" + uid + std::to_string(bytes.size()) + ":" +
         bytes;
}

struct fake_shard_state {
  static inline const char* name = "fake_shard";
  std::shared_ptr<shard_log> log;
};

account_shard_actor::behavior_type
fake_shard(account_shard_actor::stateful_pointer<fake_shard_state> self,
           std::shared_ptr<shard_log> log) {
  self->state.log = log;
  auto unused = [](auto&&...) { return caf::make_error(ec::invalid_request, "unused"); };
  return {
      [=](atom::replicate, const std::string& origin,
          const std::vector<store::outbox_entry>& entries)
          -> caf::result<store::replicate_result> {
        ++log->requests;
        for (const auto& e : entries) {
          switch (e.kind) {
          case store::outbox_kind::batch:
            log->calls.push_back("replicate " + e.idcode + " " + e.batch);
            break;
          case store::outbox_kind::ask:
            log->calls.push_back("ask " + e.idcode + " " + origin);
            break;
          case store::outbox_kind::hold:
            log->calls.push_back("hold " + e.idcode + " " + origin);
            break;
          case store::outbox_kind::retire:
            log->calls.push_back("retire " + e.idcode + " " + origin);
            break;
          }
        }
        if (log->fail)
          return caf::make_error(ec::store_unavailable, "redis down");
        if (log->silent)
          return self->make_response_promise<store::replicate_result>();
        store::replicate_result r;
        r.applied = entries.size();
        r.asked = static_cast<std::size_t>(
            std::count_if(entries.begin(), entries.end(), [](const auto& e) {
              return e.kind == store::outbox_kind::ask;
            }));
        return r;
      },
      [=](atom::remove_line, const std::string&, const std::string&,
          const std::string&) -> caf::result<bool> { return unused(); },
      [=](atom::register_line, const store::register_request&)
          -> caf::result<store::register_result> { return unused(); },
      [=](atom::find_line, const std::string&)
          -> caf::result<caf::optional<store::line_info>> { return unused(); },
      [=](atom::upload, const store::upload_request&)
          -> caf::result<store::upload_result> { return unused(); },
      [=](atom::update, const std::string&, const std::string&,
          const std::string&) -> caf::result<store::pending_counts> { return unused(); },
      [=](atom::ack, const std::string&, const std::string&, const std::string&,
          const std::string&, store::decision,
          std::uint32_t) -> caf::result<store::ack_progress> { return unused(); },
      [=](atom::read_cards, const std::string&, const std::string&, const std::string&,
          store::scope) -> caf::result<std::vector<store::stored_card>> {
        return unused();
      },
      [=](atom::history, const std::string&, const std::string&, const std::string&,
          store::scope, const std::string&,
          std::uint64_t) -> caf::result<store::history_page> { return unused(); },
      [=](atom::restore, const store::restore_request&)
          -> caf::result<store::upload_result> { return unused(); },
      [=](atom::fetch, const store::pending_request&)
          -> caf::result<store::pending_fetch> { return unused(); },
      [=](atom::claim, const std::string&, const std::string&, std::uint64_t,
          const std::string&) -> caf::result<store::claim_result> { return unused(); },
      [=](atom::release, const std::string&, const std::string&) -> caf::result<bool> {
        return unused();
      },
      [=](atom::token_hashes, const std::string&)
          -> caf::result<std::vector<std::string>> { return unused(); },
      [=](atom::put_subscriber, const std::vector<store::subscriber_record>&,
          std::uint64_t) -> caf::result<std::vector<store::subscriber_outcome>> {
        return unused();
      },
      [=](atom::delete_subscriber, const std::string&)
          -> caf::result<store::subscriber_outcome> { return unused(); },
      [=](atom::issue_code, const store::code_request&) -> caf::result<std::uint64_t> {
        return unused();
      },
      [=](atom::verify_code, const store::code_check&)
          -> caf::result<store::verified_subscriber> { return unused(); },
      [=](atom::dead_letter, const std::string& origin,
          const std::vector<store::dead_letter>& letters) -> caf::result<std::uint64_t> {
        ++log->requests;
        for (const auto& l : letters)
          log->calls.push_back("dead " + l.entry.idcode + " " + origin + ": " + l.reason);
        return static_cast<std::uint64_t>(letters.size());
      },
      [=](atom::dead_letter, const std::string&, std::uint64_t)
          -> caf::result<std::vector<store::kept_letter>> { return unused(); },
      [=](atom::dead_letter, const std::string&, const std::string&)
          -> caf::result<std::vector<store::kept_letter>> { return unused(); },
      [=](atom::drop_letter, const std::string&,
          const std::string&) -> caf::result<bool> { return unused(); },
      [=](atom::set_aside, const std::string&, std::uint64_t)
          -> caf::result<std::vector<store::aside_entry>> { return unused(); },
      [=](atom::drop_aside, const std::string&, const std::string&) -> caf::result<bool> {
        return unused();
      },
      [=](atom::status) { return actor_status{}; },
  };
}

struct testing_config : caf::actor_system_config {
  testing_config() {
    add_message_types<caf::id_block::simsync>();
    set("scheduler.policy", caf::atom("testing"));
  }
};

/// What a sender (a peer link) got back: the acked id or the error.
struct outcome {
  std::optional<std::string> acked;
  std::optional<caf::error> failed;
};

// Shard 0 and shard 1 of two: the first 8 hex digits decide (config::shard_of).
const std::string on_shard_0 = "00000000" + std::string(56, 'a');
const std::string on_shard_1 = "00000001" + std::string(56, 'a');

struct router_fixture : ::testing::Test {
  router_fixture()
      : sys(cfg),
        sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    shards = {sys.spawn(fake_shard, logs[0]), sys.spawn(fake_shard, logs[1])};
    // Ten lookups a second after a burst of 256: a window's worth.
    directory = sys.spawn(user_directory, lookup_limits{10, 256});
    endpoint = sys.spawn(router, "n1", 2, std::vector<int>{0, 1}, shards,
                         std::vector<config::node_entry>{}, directory, entry_limits{});
    sched.run();
  }

  ~router_fixture() override {
    caf::anon_send_exit(endpoint, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(directory, caf::exit_reason::user_shutdown);
    for (auto& s : shards)
      caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
    sched.run();
  }

  /// Sends one outbox entry as a peer link would; the outcome fills in as
  /// the test runs the scheduler.
  std::shared_ptr<outcome> deliver(const std::string& idcode, store::outbox_kind kind,
                                   std::string batch = "") {
    if (kind == store::outbox_kind::batch && batch.empty())
      batch = batch_of("b");
    return deliver({store::outbox_entry{"7-0", idcode, kind, batch}});
  }

  actor_status status_of(const user_directory_actor& whom) {
    auto got = std::make_shared<actor_status>();
    sys.spawn([got, whom](caf::event_based_actor* self) {
      self->request(whom, std::chrono::seconds{1}, atom::status_v)
          .then([got](actor_status& st) { *got = std::move(st); });
    });
    sched.run();
    return *got;
  }

  /// Sends a window's entries for this node in one message, as a peer link does.
  std::shared_ptr<outcome> deliver(std::vector<store::outbox_entry> entries) {
    auto out = std::make_shared<outcome>();
    peer_batch msg{"carrier-b", std::move(entries)};
    auto target = endpoint;
    sys.spawn([out, msg, target](caf::event_based_actor* self) {
      self->request(target, std::chrono::seconds{60}, atom::deliver_v, msg)
          .then([out](const std::string& id) { out->acked = id; },
                [out](caf::error& err) { out->failed = std::move(err); });
    });
    return out;
  }

  std::shared_ptr<shard_log> logs[2] = {std::make_shared<shard_log>(),
                                        std::make_shared<shard_log>()};
  testing_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::vector<account_shard_actor> shards;
  user_directory_actor directory;
  router_actor endpoint;
};

} // namespace

TEST_F(router_fixture, a_batch_goes_to_the_owning_shard_and_is_acked_with_its_id) {
  auto out = deliver(on_shard_1, store::outbox_kind::batch, batch_of("payload"));
  sched.run();
  ASSERT_TRUE(out->acked);
  EXPECT_EQ(*out->acked, "7-0");
  EXPECT_EQ(logs[1]->calls, std::vector<std::string>{"replicate " + on_shard_1 + " " +
                                                     batch_of("payload")});
  EXPECT_TRUE(logs[0]->calls.empty());
}

TEST_F(router_fixture, an_ask_goes_to_the_owning_shard_by_way_of_the_directory) {
  auto out = deliver(on_shard_0, store::outbox_kind::ask);
  sched.run();
  ASSERT_TRUE(out->acked);
  EXPECT_EQ(logs[0]->calls, std::vector<std::string>{"ask " + on_shard_0 + " carrier-b"});
  auto st = status_of(directory);
  EXPECT_EQ(st.processed, 1u);
  EXPECT_EQ(st.directory["asked"], 1u);
  EXPECT_TRUE(st.paced.empty());
}

TEST_F(router_fixture, lookups_beyond_a_peers_burst_wait_for_its_pace) {
  // 256 go at once; the next 20 wait two seconds at ten a second.
  std::vector<store::outbox_entry> window;
  for (int i = 0; i < 276; ++i)
    window.push_back({std::to_string(i + 1) + "-0", on_shard_1,
                      i % 2 ? store::outbox_kind::hold : store::outbox_kind::ask, ""});
  auto first = deliver(std::vector(window.begin(), window.begin() + 256));
  sched.run();
  ASSERT_TRUE(first->acked);
  auto second = deliver(std::vector(window.begin() + 256, window.end()));
  sched.run();
  EXPECT_FALSE(second->acked);
  EXPECT_EQ(logs[1]->calls.size(), 256u); // the second part waits
  EXPECT_EQ(status_of(directory).paced["carrier-b"], 20u);
  sched.advance_time(std::chrono::milliseconds{1900});
  sched.run();
  EXPECT_FALSE(second->acked);
  sched.advance_time(std::chrono::milliseconds{200});
  sched.run();
  ASSERT_TRUE(second->acked);
  EXPECT_EQ(*second->acked, "276-0");
  EXPECT_EQ(logs[1]->calls.size(), 276u);
  // Retirements and batches are not lookups: they never wait.
  auto later = deliver({{"277-0", on_shard_1, store::outbox_kind::retire, ""},
                        {"278-0", on_shard_1, store::outbox_kind::batch, batch_of("r")}});
  sched.run();
  EXPECT_TRUE(later->acked);
}

TEST_F(router_fixture, a_retirement_removes_the_origin_as_sibling) {
  auto out = deliver(on_shard_1, store::outbox_kind::retire);
  sched.run();
  ASSERT_TRUE(out->acked);
  EXPECT_EQ(logs[1]->calls,
            std::vector<std::string>{"retire " + on_shard_1 + " carrier-b"});
}

TEST_F(router_fixture, a_shard_error_reaches_the_sender) {
  logs[0]->fail = true;
  auto out = deliver(on_shard_0, store::outbox_kind::batch);
  sched.run();
  ASSERT_TRUE(out->failed);
  EXPECT_EQ(*out->failed, ec::store_unavailable);
  EXPECT_FALSE(out->acked);
}

TEST_F(router_fixture, an_entry_that_fails_its_checks_is_kept_as_a_dead_letter) {
  auto now_hlc = core::unix_now_ms() * core::hlc_logical_per_ms;
  struct bad_case {
    std::string idcode;
    store::outbox_kind kind;
    std::string batch;
    std::string reason; ///< what the dead letter says, in part
  };
  std::string huge(2u << 20, 'x');
  for (const auto& c : std::vector<bad_case>{
           {"", store::outbox_kind::batch, batch_of("b"), "idcode"},
           {std::string(64, 'G'), store::outbox_kind::batch, batch_of("b"), "idcode"},
           {std::string(63, 'a'), store::outbox_kind::ask, "", "idcode"},
           {on_shard_0, store::outbox_kind::batch, "x", "pairs"},
           {on_shard_0, store::outbox_kind::ask, batch_of("b"), "directory entry"},
           {on_shard_0, store::outbox_kind::hold, batch_of("b"), "directory entry"},
           {on_shard_0, store::outbox_kind::batch, batch_of("b", 9'999'999'999'999'999),
            "beyond"},
           {on_shard_0, store::outbox_kind::batch, batch_of("b", now_hlc + 3'600'000'000),
            "ahead"},
           {on_shard_0, store::outbox_kind::batch,
            batch_of("b", 1'700'000'000'000'000, huge), "larger"},
           {on_shard_0, store::outbox_kind::batch, "1:u5:hello", "parse"}}) {
    SCOPED_TRACE(c.reason);
    logs[0]->calls.clear();
    auto out = deliver({{"7-0", c.idcode, c.kind, c.batch}});
    sched.run();
    // Kept, so acknowledged: the link goes on.
    ASSERT_TRUE(out->acked);
    ASSERT_EQ(logs[0]->calls.size(), 1u);
    EXPECT_EQ(logs[0]->calls[0].rfind("dead " + c.idcode + " carrier-b: ", 0), 0u)
        << logs[0]->calls[0];
    EXPECT_NE(logs[0]->calls[0].find(c.reason), std::string::npos) << logs[0]->calls[0];
  }
  EXPECT_TRUE(logs[1]->calls.empty());
}

TEST_F(router_fixture, a_replaced_shard_takes_the_next_entries) {
  auto log = std::make_shared<shard_log>();
  auto fresh = sys.spawn(fake_shard, log);
  caf::anon_send(endpoint, atom::replaced_v, int32_t{1}, fresh);
  sched.run();
  auto out = deliver(on_shard_1, store::outbox_kind::batch);
  sched.run();
  EXPECT_TRUE(out->acked);
  EXPECT_EQ(log->calls.size(), 1u);
  EXPECT_TRUE(logs[1]->calls.empty());
  caf::anon_send_exit(fresh, caf::exit_reason::user_shutdown);
}

TEST_F(router_fixture, it_reports_every_reachable_shard) {
  auto known = std::make_shared<node_shards>();
  auto target = endpoint;
  sys.spawn([known, target](caf::event_based_actor* self) {
    self->request(target, std::chrono::seconds{1}, atom::shards_v)
        .then([known](node_shards& s) { *known = std::move(s); });
  });
  sched.run();
  EXPECT_EQ(known->indices, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(known->handles.size(), 2u);
}

TEST_F(router_fixture, a_window_goes_as_one_request_per_shard_in_stream_order) {
  using store::outbox_kind;
  auto out = deliver({{"1-0", on_shard_1, outbox_kind::ask, ""},
                      {"2-0", on_shard_0, outbox_kind::batch, batch_of("x")},
                      {"3-0", on_shard_1, outbox_kind::batch, batch_of("y")},
                      {"4-0", on_shard_0, outbox_kind::retire, ""},
                      {"5-0", on_shard_1, outbox_kind::batch, batch_of("z")}});
  sched.run();
  ASSERT_TRUE(out->acked);
  EXPECT_EQ(*out->acked, "5-0"); // through the last entry
  EXPECT_EQ(logs[0]->requests, 1u);
  EXPECT_EQ(logs[1]->requests, 1u);
  EXPECT_EQ(logs[0]->calls,
            (std::vector<std::string>{"replicate " + on_shard_0 + " " + batch_of("x"),
                                      "retire " + on_shard_0 + " carrier-b"}));
  EXPECT_EQ(logs[1]->calls,
            (std::vector<std::string>{"ask " + on_shard_1 + " carrier-b",
                                      "replicate " + on_shard_1 + " " + batch_of("y"),
                                      "replicate " + on_shard_1 + " " + batch_of("z")}));
}

TEST_F(router_fixture, no_ack_until_every_shard_of_the_window_has_persisted) {
  logs[1]->silent = true;
  auto out = deliver({{"1-0", on_shard_0, store::outbox_kind::batch, batch_of("x")},
                      {"2-0", on_shard_1, store::outbox_kind::batch, batch_of("y")}});
  sched.run();
  EXPECT_EQ(logs[0]->requests, 1u);
  EXPECT_EQ(logs[1]->requests, 1u);
  EXPECT_FALSE(out->acked);
  EXPECT_FALSE(out->failed);
  sched.advance_time(std::chrono::seconds{61});
  sched.run();
  EXPECT_FALSE(out->acked);
  EXPECT_TRUE(out->failed);
}

TEST_F(router_fixture, one_failing_shard_fails_the_whole_window) {
  logs[1]->fail = true;
  auto out = deliver({{"1-0", on_shard_0, store::outbox_kind::batch, batch_of("x")},
                      {"2-0", on_shard_1, store::outbox_kind::batch, batch_of("y")}});
  sched.run();
  ASSERT_TRUE(out->failed);
  EXPECT_EQ(*out->failed, ec::store_unavailable);
  EXPECT_FALSE(out->acked);
}

TEST_F(router_fixture, one_bad_entry_does_not_hold_up_the_others) {
  auto out = deliver({{"1-0", on_shard_1, store::outbox_kind::batch, "garbage"},
                      {"2-0", on_shard_1, store::outbox_kind::batch, batch_of("y")}});
  sched.run();
  ASSERT_TRUE(out->acked);
  EXPECT_EQ(*out->acked, "2-0");
  EXPECT_EQ(logs[1]->calls,
            std::vector<std::string>{"replicate " + on_shard_1 + " " + batch_of("y")});
  ASSERT_EQ(logs[0]->calls.size(), 1u);
  EXPECT_EQ(logs[0]->calls[0].rfind("dead " + on_shard_1, 0), 0u);
}

// -- joining the carrier's other nodes ------------------------------------------

namespace {

config::node_entry sibling(std::string id, std::vector<int> shards) {
  config::node_entry n;
  n.id = std::move(id);
  n.cluster = {"127.0.0.1", 1};
  n.shards = std::move(shards);
  return n;
}

/// A router of node "a2" owning shard 1, whose sibling "a1" (shard 0) joins it,
/// and whose sibling "a3" (shard 2) it would join itself.
struct joining_fixture : ::testing::Test {
  joining_fixture()
      : sys(cfg),
        sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    own = sys.spawn(fake_shard, log);
    a1_shard = sys.spawn(fake_shard, log);
    // Only "a1" (sorting first) connects; "a3" is never joined here because
    // the test system has no TLS middleman: a2 would connect to a3 itself.
    directory = sys.spawn(user_directory, lookup_limits{});
    target = sys.spawn(router, "a2", 3, std::vector<int>{1}, std::vector{own},
                       std::vector{sibling("a1", {0})}, directory, entry_limits{});
    sched.run();
  }

  ~joining_fixture() override {
    for (auto& handle :
         {caf::actor_cast<caf::actor>(target), caf::actor_cast<caf::actor>(own),
          caf::actor_cast<caf::actor>(a1_shard), caf::actor_cast<caf::actor>(directory)})
      caf::anon_send_exit(handle, caf::exit_reason::user_shutdown);
    for (auto& handle : stand_ins)
      caf::anon_send_exit(handle, caf::exit_reason::user_shutdown);
    sched.run();
  }

  /// A stand-in for node `id`'s router: it says it joined, and answers with
  /// `a1_shard` as its shard 0.
  std::shared_ptr<std::optional<bool>> join_as(const std::string& id) {
    auto answer = std::make_shared<std::optional<bool>>();
    auto to = target;
    auto mine = a1_shard;
    stand_ins.push_back(
        sys.spawn([answer, to, id,
                   mine](router_actor::pointer self) -> router_actor::behavior_type {
          self->request(to, std::chrono::seconds{1}, atom::join_v, id)
              .then([answer](bool accepted) { *answer = accepted; });
          auto unused = [](auto&&...) {};
          return {
              [](atom::deliver, const peer_batch&) { return std::string{}; },
              [mine](atom::shards) {
                return node_shards{{0}, {mine}};
              },
              [unused](atom::join, int32_t i) { unused(i); },
              [](atom::join, const std::string&) { return false; },
              [unused](atom::replaced, int32_t i, const account_shard_actor& a) {
                unused(i, a);
              },
              [](atom::status) { return actor_status{}; },
          };
        }));
    sched.run();
    return answer;
  }

  node_shards known() {
    auto out = std::make_shared<node_shards>();
    auto to = target;
    sys.spawn([out, to](caf::event_based_actor* self) {
      self->request(to, std::chrono::seconds{1}, atom::shards_v)
          .then([out](node_shards& s) { *out = std::move(s); });
    });
    sched.run();
    return *out;
  }

  std::shared_ptr<shard_log> log = std::make_shared<shard_log>();
  testing_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  account_shard_actor own, a1_shard;
  user_directory_actor directory;
  router_actor target;
  std::vector<router_actor> stand_ins;
};

} // namespace

TEST_F(joining_fixture, a_sibling_that_joins_is_routed_to) {
  EXPECT_EQ(known().indices, (std::vector<int32_t>{1}));
  auto answer = join_as("a1");
  ASSERT_TRUE(answer->has_value());
  EXPECT_TRUE(**answer);
  auto after = known();
  EXPECT_EQ(after.indices, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(after.handles[0], a1_shard);
}

TEST_F(joining_fixture, only_a_configured_sibling_that_sorts_first_may_join) {
  auto stranger = join_as("x9");
  ASSERT_TRUE(stranger->has_value());
  EXPECT_FALSE(**stranger);
  auto itself = join_as("a2");
  ASSERT_TRUE(itself->has_value());
  EXPECT_FALSE(**itself);
  EXPECT_EQ(known().indices, (std::vector<int32_t>{1}));
}
