// How a large upload is cut into parts (store/upload_parts.hpp).
#include "store/upload_parts.hpp"

#include <gtest/gtest.h>

using namespace simsync;

namespace {

store::upload_request request(store::upload_mode mode, int cards) {
  store::upload_request req;
  req.idcode = "idcode";
  req.line = "bGluZS1pZC1vZi1hLWxpbmU";
  req.token_hash = "proof";
  req.mode = mode;
  for (int i = 0; i < cards; ++i)
    req.cards.push_back(
        {"u" + std::to_string(i), core::content_hash::of(std::to_string(i)),
         "card " + std::to_string(i), static_cast<std::size_t>(i), false});
  req.now_ms = 1700000000000;
  req.guard = {3, 50};
  req.confirm_removals = 4;
  req.allow_removals = false;
  return req;
}

std::vector<std::string> uids_of(const store::upload_request& part) {
  std::vector<std::string> out;
  for (const auto& card : part.cards)
    out.push_back(card.uid);
  return out;
}

} // namespace

TEST(upload_parts, an_upload_within_a_part_is_sent_as_it_is) {
  for (auto mode : {store::upload_mode::snapshot, store::upload_mode::delta}) {
    auto parts = store::upload_parts(request(mode, 3), 3);
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].mode, mode);
    EXPECT_EQ(parts[0].cards.size(), 3u);
    EXPECT_FALSE(parts[0].later_part);
  }
  auto removal = request(store::upload_mode::remove, 0);
  removal.uids = {"a", "b", "c", "d"};
  auto parts = store::upload_parts(removal, 2);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].uids.size(), 4u);
}

TEST(upload_parts, a_snapshot_is_a_prune_of_all_its_uids_then_its_cards_in_order) {
  auto parts = store::upload_parts(request(store::upload_mode::snapshot, 5), 2);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].mode, store::upload_mode::prune);
  EXPECT_EQ(uids_of(parts[0]), (std::vector<std::string>{"u0", "u1", "u2", "u3", "u4"}));
  for (const auto& card : parts[0].cards)
    EXPECT_TRUE(card.card.empty()) << "a prune names cards by uid and hash alone";
  EXPECT_EQ(parts[0].cards[4].hash, core::content_hash::of("4"));
  EXPECT_FALSE(parts[0].later_part) << "the first part may be refused for lag";
  EXPECT_EQ(uids_of(parts[1]), (std::vector<std::string>{"u0", "u1"}));
  EXPECT_EQ(uids_of(parts[2]), (std::vector<std::string>{"u2", "u3"}));
  EXPECT_EQ(uids_of(parts[3]), (std::vector<std::string>{"u4"}));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    EXPECT_EQ(parts[i].mode, store::upload_mode::delta);
    EXPECT_TRUE(parts[i].later_part);
    EXPECT_FALSE(parts[i].refused_when_behind());
  }
  // Every part is the line's request: its account, proof, clock and guard.
  for (const auto& part : parts) {
    EXPECT_EQ(part.idcode, "idcode");
    EXPECT_EQ(part.token_hash, "proof");
    EXPECT_EQ(part.now_ms, 1700000000000u);
    EXPECT_EQ(part.guard.min_cards, 3u);
    EXPECT_EQ(part.confirm_removals, 4u);
    EXPECT_FALSE(part.allow_removals);
  }
  EXPECT_EQ(parts[1].cards[1].card, "card 1");
  EXPECT_EQ(parts[1].cards[1].hash, core::content_hash::of("1"));
}

TEST(upload_parts, the_deltas_after_a_prune_carry_only_the_cards_it_asks_for) {
  auto parts = store::upload_parts(request(store::upload_mode::snapshot, 5), 2);
  store::drop_cards_held(parts, "01001");
  ASSERT_EQ(parts.size(), 3u)
      << "the prune, then u1, then u4: the part of u2, u3 is gone";
  EXPECT_EQ(parts[0].mode, store::upload_mode::prune);
  EXPECT_EQ(uids_of(parts[1]), (std::vector<std::string>{"u1"}));
  EXPECT_EQ(parts[1].cards[0].card, "card 1");
  EXPECT_EQ(uids_of(parts[2]), (std::vector<std::string>{"u4"}));
  EXPECT_TRUE(parts[2].later_part);

  auto unchanged = store::upload_parts(request(store::upload_mode::snapshot, 5), 2);
  store::drop_cards_held(unchanged, "00000");
  EXPECT_EQ(unchanged.size(), 1u) << "the prune alone";
}

TEST(upload_parts, an_answer_that_does_not_fit_the_parts_drops_nothing) {
  for (std::string answer : {"", "0000", "000000"}) {
    auto parts = store::upload_parts(request(store::upload_mode::snapshot, 5), 2);
    store::drop_cards_held(parts, answer);
    EXPECT_EQ(parts.size(), 4u) << "'" << answer << "'";
  }
  auto deltas = store::upload_parts(request(store::upload_mode::delta, 5), 2);
  store::drop_cards_held(deltas, "00");
  EXPECT_EQ(deltas.size(), 3u) << "deltas have no prune to answer for them";
}

TEST(upload_parts, a_snapshot_of_more_than_a_small_book_goes_as_a_prune_within_a_part) {
  constexpr auto most = store::snapshot_prune_cards;
  auto small = store::upload_parts(request(store::upload_mode::snapshot, most));
  ASSERT_EQ(small.size(), 1u) << "one call";
  EXPECT_EQ(small[0].mode, store::upload_mode::snapshot);

  auto book = store::upload_parts(request(store::upload_mode::snapshot, most + 1));
  ASSERT_EQ(book.size(), 2u) << "a prune (its answer may leave the delta out), a delta";
  EXPECT_EQ(book[0].mode, store::upload_mode::prune);
  EXPECT_EQ(book[1].mode, store::upload_mode::delta);
  EXPECT_EQ(book[1].cards.size(), most + 1);

  auto delta = store::upload_parts(request(store::upload_mode::delta, most + 1));
  ASSERT_EQ(delta.size(), 1u) << "a delta names no card it does not change";
  EXPECT_EQ(delta[0].mode, store::upload_mode::delta);

  auto unbounded =
      store::upload_parts(request(store::upload_mode::snapshot, most + 1), 0);
  ASSERT_EQ(unbounded.size(), 2u) << "no bound on a part: the prune, then one delta";
  EXPECT_EQ(unbounded[1].cards.size(), most + 1);
}

TEST(upload_parts, a_delta_is_deltas) {
  auto parts = store::upload_parts(request(store::upload_mode::delta, 5), 2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(uids_of(parts[2]), (std::vector<std::string>{"u4"}));
  EXPECT_FALSE(parts[0].later_part);
  EXPECT_TRUE(parts[0].refused_when_behind());
  for (const auto& part : parts)
    EXPECT_EQ(part.mode, store::upload_mode::delta);
}

TEST(upload_parts, the_parts_results_add_up_and_the_last_version_is_the_answer) {
  store::upload_result sum;
  store::add_part_result(sum, {7, 0, 0, 2, 0, {{"u9", "not-held"}}, 0, 0, {}});
  store::add_part_result(sum, {8, 2, 1, 0, 3, {}, 0, 0, {}});
  store::add_part_result(sum, {9, 1, 0, 0, 1, {{"u8", "changed-since-seen"}}, 0, 0, {}});
  EXPECT_EQ(sum.version, 9u);
  EXPECT_EQ(sum.added, 3u);
  EXPECT_EQ(sum.changed, 1u);
  EXPECT_EQ(sum.removed, 2u);
  EXPECT_EQ(sum.unchanged, 4u);
  ASSERT_EQ(sum.conflicts.size(), 2u);
  EXPECT_EQ(sum.conflicts[1].uid, "u8");
  EXPECT_FALSE(sum.held_for_confirmation());
}
