// Rotating a carrier's seal keys while its lines keep writing: a new key is
// added to the keyring file and loaded, made the writer and loaded, a re-seal
// pass runs, and the old key is dropped once nothing is left under it. No
// acknowledged change is lost, at the carrier or at its sibling, and only the
// admin credential may do any of it.
#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/random_hex.hpp"
#include "tests/support/test_keyring.hpp"

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

struct key_rotation : shared_deployment<key_rotation> {
  static std::vector<std::string> carriers() { return {"carrier-a", "carrier-b"}; }

  void write_keyring(const std::string& text) {
    std::ofstream(d->seal_key_file("carrier-a"), std::ios::trunc) << text;
  }
  nlohmann::json keys_admin(const std::string& method, const std::string& path,
                            int expected = 200) {
    auto a = http.admin("carrier-a", method, "/admin/keys" + path, "");
    EXPECT_EQ(a.status, expected) << method << " " << path << ": " << a;
    return a.json;
  }
  /// Runs re-seal passes until one is clean: it found every value sealed
  /// with the writer (outbox entries under the old key leave as the link
  /// sends them; a write meanwhile may have copied what a pass re-sealed).
  nlohmann::json reseal_until_clean() {
    nlohmann::json status;
    for (int attempt = 0; attempt < 60; ++attempt) {
      auto passes = keys_admin("GET", "")["reseal"].value("passes", 0);
      keys_admin("POST", "/reseal", 202);
      EXPECT_TRUE(eventually([&] {
        status = keys_admin("GET", "");
        return status["reseal"].value("passes", 0) > passes &&
               !status["reseal"].value("running", true);
      })) << status;
      if (status["reseal"].value("clean", false))
        return status;
      std::this_thread::sleep_for(std::chrono::milliseconds{200});
    }
    ADD_FAILURE() << "no pass found everything sealed with the writer: " << status;
    return status;
  }
};

} // namespace

TEST_F(key_rotation, only_the_admin_credential_may_see_reload_or_reseal_keys) {
  for (auto [method, path] :
       {std::pair{"GET", ""}, {"POST", "/reload"}, {"POST", "/reseal"}}) {
    EXPECT_EQ(http.admin("carrier-a", method, std::string("/admin/keys") + path, "", "",
                         std::string("not-the-key"))
                  .status,
              401)
        << method << path;
    EXPECT_EQ(http.admin("carrier-a", method, std::string("/admin/keys") + path, "", "",
                         std::string(""))
                  .status,
              401)
        << method << path;
  }
}

TEST_F(key_rotation, a_keyring_that_does_not_parse_changes_nothing) {
  auto before = keys_admin("GET", "");
  auto kept = d->keys("carrier-a");
  write_keyring("writer = 9\n[keys]\n");
  auto refused = http.admin("carrier-a", "POST", "/admin/keys/reload", "");
  EXPECT_EQ(refused.status, 400) << refused;
  EXPECT_NE(refused.body.find("the node keeps its keys"), std::string::npos) << refused;
  std::map<int, std::string> keys;
  for (const auto& [id, key] : kept.seal_keys())
    keys[id] = key;
  write_keyring(keyring_text(keys, kept.writer(), kept.lookup_key()));
  EXPECT_EQ(keys_admin("GET", "")["keys"], before["keys"]);
}

TEST_F(key_rotation, keys_rotate_under_load_and_nothing_acknowledged_is_lost) {
  auto a = http.register_line("carrier-a", "+8613800000301", 31);
  auto b = http.register_line("carrier-b", "+8618600000301", 31);
  auto old_ring = d->keys("carrier-a");
  auto old_id = static_cast<int>(old_ring.writer());
  std::map<int, std::string> keys{{old_id, old_ring.seal_keys().at(old_ring.writer())}};
  auto new_id = old_id + 1;

  // A line edits its book all along, one card per request, until at least
  // 20 were acknowledged. After a request shed while replication is behind
  // (503, on a busy machine) it waits a moment, as a phone waits its
  // Retry-After: 20 requests in a row could all be shed.
  std::atomic<bool> done{false};
  std::set<std::string> acknowledged;
  std::thread writer([&] {
    gateway_client own{*d};
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds{60};
    for (int i = 0; (!done || acknowledged.size() < 20) &&
                    std::chrono::steady_clock::now() < give_up;
         ++i) {
      auto uid = "k" + std::to_string(i);
      auto pushed = own.push(a, card(uid, "Rotating " + uid), "", "POST");
      if (pushed.status == 200)
        acknowledged.insert(uid);
      else if (pushed.status == 503)
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
  });

  keys[new_id] = random_hex(32); // 32 bytes
  // 1. Every node can open the new key before any seals with it.
  write_keyring(keyring_text(keys, old_id, old_ring.lookup_key()));
  EXPECT_EQ(keys_admin("POST", "/reload")["keys"].size(), 2u);
  // 2. The new key seals from now on.
  write_keyring(keyring_text(keys, new_id, old_ring.lookup_key()));
  EXPECT_EQ(keys_admin("POST", "/reload")["writer"], new_id);
  // 3. What the old key sealed is sealed again.
  auto status = reseal_until_clean();
  EXPECT_GT(status["reseal"].value("scanned", 0), 0);
  done = true;
  writer.join();
  // 4. The old key goes.
  keys.erase(old_id);
  write_keyring(keyring_text(keys, new_id, old_ring.lookup_key()));
  EXPECT_EQ(keys_admin("POST", "/reload")["keys"], nlohmann::json::array({new_id}));
  reseal_until_clean();

  ASSERT_GE(acknowledged.size(), 20u);
  auto book = http.contacts(a);
  ASSERT_EQ(book.status, 200) << book;
  for (const auto& uid : acknowledged)
    EXPECT_NE(book.body.find("UID:" + uid + "\r\n"), std::string::npos) << uid;
  // The sibling got every change too (its own keys never changed).
  std::string sibling_book;
  EXPECT_TRUE(eventually([&] {
    sibling_book = http.contacts(b).body;
    return std::all_of(
        acknowledged.begin(), acknowledged.end(), [&](const std::string& uid) {
          return sibling_book.find("UID:" + uid + "\r\n") != std::string::npos;
        });
  })) << acknowledged.size()
      << " acknowledged; carrier-b's book: " << sibling_book;
}
