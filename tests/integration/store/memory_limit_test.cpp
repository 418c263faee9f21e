// A Redis at its memory limit (maxmemory with noeviction,
// store/redis-settings.conf) refuses writes rather than drop data. There a
// line still reads its book and its history, a wrong token is still refused,
// and an upload is refused as store_unavailable and changes nothing; once
// Redis has room again, the same upload is taken.

#include "tests/integration/store/store_fixture.hpp"

#include "core/error.hpp"

namespace simsync::testing {
namespace {

void set_maxmemory(store::redis_client& admin, const std::string& bytes) {
  auto r = admin.call({"CONFIG", "SET", "maxmemory", bytes});
  ASSERT_TRUE(r) << describe(r.error());
}

TEST(memory_limit, a_full_redis_still_serves_a_lines_reads_and_refuses_its_writes_whole) {
  carrier_store a("carrier-a");
  register_line(a.store, person, "line-1");
  upload(a.store, person, "line-1", numbered_cards(0, 5));
  const auto shared_before = hash_fields(a.admin, store::keys::shared(person));
  ASSERT_EQ(shared_before.size(), 5u);

  set_maxmemory(a.admin, "1"); // below what Redis holds already: it is full

  auto cards =
      a.store.read_cards(person, "line-1", proof_of("line-1"), store::scope::shared);
  ASSERT_TRUE(cards) << describe(cards.error());
  EXPECT_EQ(cards->size(), 5u);
  auto history = a.store.read_history(person, "line-1", proof_of("line-1"),
                                      store::scope::shared, "", 10);
  ASSERT_TRUE(history) << describe(history.error());
  EXPECT_EQ(history->changes.size(), 5u);
  auto wrong_token =
      a.store.read_cards(person, "line-1", proof_of("line-2"), store::scope::shared);
  ASSERT_FALSE(wrong_token);
  EXPECT_EQ(wrong_token.error(), ec::bad_token) << describe(wrong_token.error());

  auto grown = upload_request_of(person, "line-1", numbered_cards(0, 7));
  auto refused = a.store.upload(grown);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), ec::store_unavailable) << describe(refused.error());
  EXPECT_EQ(hash_fields(a.admin, store::keys::shared(person)), shared_before);

  set_maxmemory(a.admin, "0");
  auto taken = a.store.upload(grown);
  ASSERT_TRUE(taken) << describe(taken.error());
  EXPECT_EQ(taken->added, 2u);
  EXPECT_EQ(hash_fields(a.admin, store::keys::shared(person)).size(), 7u);
}

} // namespace
} // namespace simsync::testing
