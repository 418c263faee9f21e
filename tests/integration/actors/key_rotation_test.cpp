// A node's re-seal pass (actors/key_rotation.cpp) on CAF's real scheduler
// over a real redis-server: it looks at nothing while a write sealed under an
// older writer is unanswered, and calls itself clean only after a pass that
// found every value sealed with the writer, so that an older key may go.
#include "actors/key_rotation.hpp"
#include "store/account_calls.hpp"
#include "tests/integration/store/store_fixture.hpp"
#include "tests/support/test_keyring.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <chrono>
#include <fstream>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";

struct key_rotation_pass : ::testing::Test {
  key_rotation_pass() : sys(cfg) {
    // A ring a keyring file can hold (a lookup key of 32 bytes), before anything is
    // sealed.
    a.keys->replace(core::keyring({{1, old_key}}, 1, lookup_key));
    register_line(a.store, person, line_a);
    upload(a.store, person, line_a, {make_card("u1", "Ada"), make_card("u2", "Bo")});
  }

  /// The node's keyring file: `ids` from {1: the old key, 2: a new one}.
  void write_keyring(std::initializer_list<int> ids, int writer) {
    std::map<int, std::string> keys;
    for (int id : ids)
      keys[id] = id == 1 ? old_key : new_key;
    std::ofstream(keyring_file, std::ios::trunc)
        << keyring_text(keys, writer, lookup_key);
  }

  /// Key 2 in the ring and sealing, as a rotation's first two steps leave it.
  void make_key_2_the_writer() {
    write_keyring({1, 2}, 2);
    ASSERT_EQ(rotation.reload(), "");
    ASSERT_EQ(a.keys->current()->writer(), 2);
  }

  /// Starts a pass and waits until it is over; its status.
  key_rotation_status finished_pass() {
    auto passes = rotation.status().passes;
    EXPECT_TRUE(rotation.start_pass());
    return once_over(passes);
  }

  /// Waits until the running pass is over (`passes` were before it); its status.
  key_rotation_status once_over(std::uint64_t passes) {
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds{30};
    auto s = rotation.status();
    while ((s.running || s.passes == passes) &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds{10});
      s = rotation.status();
    }
    EXPECT_FALSE(s.running);
    EXPECT_EQ(s.last_error, "");
    return s;
  }

  carrier_store a{"carrier-a"};
  caf::actor_system_config cfg;
  caf::actor_system sys;
  std::string keyring_file = a.server.dir() + "/keyring.toml";
  std::string old_key = random_hex(32), new_key = random_hex(32);
  std::string lookup_key = random_hex(32);
  key_rotation rotation{sys, a.keys, keyring_file, a.server.endpoint()};
};

} // namespace

TEST_F(key_rotation_pass, waits_for_a_write_sealed_under_the_older_writer) {
  // An edit sealed with key 1 before the writer changed, not yet in Redis.
  auto req = upload_request_of(person, line_a, {make_card("u3", "Cy")},
                               store::upload_mode::delta); // the call's arguments view it
  auto in_flight = std::make_unique<store::upload_call>(
      req, "carrier-a", a.keys->current(), store::history_policy{});
  make_key_2_the_writer();
  auto passes = rotation.status().passes;
  ASSERT_TRUE(rotation.start_pass());
  std::this_thread::sleep_for(std::chrono::milliseconds{300});
  auto meanwhile = rotation.status();
  EXPECT_TRUE(meanwhile.running);
  EXPECT_TRUE(meanwhile.waiting);
  EXPECT_EQ(meanwhile.scanned, 0u) << "the pass looked before the edit landed";

  // The edit lands and is answered; the pass goes on and re-seals it too.
  auto landed = store::run_call(a.client, *in_flight);
  ASSERT_TRUE(landed) << describe(landed.error());
  in_flight.reset();
  auto first = once_over(passes);
  EXPECT_FALSE(first.waiting);
  EXPECT_EQ(first.resealed,
            3u); // u1, u2, u3 in the shared store; history has no old version

  ASSERT_TRUE(finished_pass().clean());
  write_keyring({2}, 2);
  ASSERT_EQ(rotation.reload(), "");
  auto book = opened_records(a, person); // with key 2 alone
  EXPECT_EQ(book.size(), 3u);
  for (const auto& [uid, record] : book)
    EXPECT_EQ(record.find("(does not open)"), std::string::npos) << uid << ": " << record;
}

TEST_F(key_rotation_pass, is_clean_only_after_a_pass_that_found_nothing_to_do) {
  make_key_2_the_writer();
  auto first = finished_pass();
  EXPECT_GT(first.resealed, 0u);
  EXPECT_TRUE(first.left.empty());
  EXPECT_FALSE(first.clean()) << "what it re-sealed may have been copied behind it";
  auto second = finished_pass();
  EXPECT_EQ(second.resealed, 0u);
  EXPECT_TRUE(second.clean());

  // A pass under an earlier writer says nothing of the writer of now.
  write_keyring({1, 2}, 1);
  ASSERT_EQ(rotation.reload(), "");
  EXPECT_FALSE(rotation.status().clean());
}
