// How a peer link plans a window (actors/window_plan.hpp): which entries go,
// which wait for the next window, to which peer node and in which requests,
// and how many entries the next read asks for.
#include "actors/window_plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace simsync {
namespace {

/// An entry with stream id `id` for account `idcode` whose batch is `bytes` long.
store::outbox_entry entry(const std::string& id, const std::string& idcode,
                          std::size_t bytes) {
  store::outbox_entry e;
  e.id = id;
  e.idcode = idcode;
  e.batch = std::string(bytes, 'x');
  return e;
}

/// The ids of `entries`, in order.
std::vector<std::string> ids(const std::vector<store::outbox_entry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries)
    out.push_back(e.id);
  return out;
}

/// Every entry on node 0.
std::size_t one_node(const std::string&) {
  return 0;
}

/// Idcodes name their node: "n0-...", "n1-...".
std::size_t node_in_idcode(const std::string& idcode) {
  return static_cast<std::size_t>(idcode.at(1) - '0');
}

using ids_t = std::vector<std::string>;

TEST(window_plan, nothing_to_send_plans_no_request) {
  auto plan = plan_window({}, 2, one_node);
  ASSERT_EQ(plan.requests_by_node.size(), 2u);
  EXPECT_TRUE(plan.requests_by_node[0].empty());
  EXPECT_TRUE(plan.requests_by_node[1].empty());
  EXPECT_TRUE(plan.unsent.empty());
  EXPECT_EQ(plan.last_id, "");
  EXPECT_EQ(plan.bytes, 0u);
}

TEST(window_plan, a_batch_entry_left_with_no_card_goes_nowhere_but_ends_with_the_window) {
  auto plan = plan_window(
      {entry("1-0", "n0-a", 10), entry("2-0", "n0-b", 0), entry("3-0", "n0-a", 0)}, 1,
      one_node);
  ASSERT_EQ(plan.requests_by_node[0].size(), 1u);
  EXPECT_EQ(ids(plan.requests_by_node[0][0]), (ids_t{"1-0"}));
  EXPECT_EQ(plan.nothing_to_send, 2u);
  EXPECT_EQ(plan.last_id, "3-0");
}

TEST(window_plan, a_directory_entry_goes_though_it_has_no_card) {
  auto ask = entry("1-0", "n0-a", 0);
  ask.kind = store::outbox_kind::ask;
  auto plan = plan_window({ask}, 1, one_node);
  ASSERT_EQ(plan.requests_by_node[0].size(), 1u);
  EXPECT_EQ(ids(plan.requests_by_node[0][0]), (ids_t{"1-0"}));
  EXPECT_EQ(plan.nothing_to_send, 0u);
}

TEST(window_plan, small_entries_all_go_in_one_request) {
  auto plan = plan_window(
      {entry("1-0", "n0-a", 10), entry("2-0", "n0-b", 10), entry("3-0", "n0-a", 10)}, 1,
      one_node);
  ASSERT_EQ(plan.requests_by_node.size(), 1u);
  ASSERT_EQ(plan.requests_by_node[0].size(), 1u);
  EXPECT_EQ(ids(plan.requests_by_node[0][0]), (ids_t{"1-0", "2-0", "3-0"}));
  EXPECT_TRUE(plan.unsent.empty());
  EXPECT_EQ(plan.last_id, "3-0");
}

TEST(window_plan, an_entry_larger_than_the_window_goes_alone) {
  window_limits limits{256, 100, 50};
  auto plan = plan_window(
      {entry("1-0", "n0-a", 500), entry("2-0", "n0-a", 1), entry("3-0", "n0-b", 1)}, 1,
      one_node, limits);
  ASSERT_EQ(plan.requests_by_node[0].size(), 1u);
  EXPECT_EQ(ids(plan.requests_by_node[0][0]), (ids_t{"1-0"}));
  EXPECT_EQ(ids(plan.unsent), (ids_t{"2-0", "3-0"}));
  EXPECT_EQ(plan.last_id, "1-0");
}

TEST(window_plan, the_window_ends_at_the_entry_that_reaches_its_bytes) {
  window_limits limits{256, 100, 1000};
  // 40 + 40 < 100 goes on; the third reaches 120 and is the last one in.
  auto plan = plan_window({entry("1-0", "n0-a", 40), entry("2-0", "n0-a", 40),
                           entry("3-0", "n0-a", 40), entry("4-0", "n0-a", 1)},
                          1, one_node, limits);
  ASSERT_EQ(plan.requests_by_node[0].size(), 1u);
  EXPECT_EQ(ids(plan.requests_by_node[0][0]), (ids_t{"1-0", "2-0", "3-0"}));
  EXPECT_EQ(ids(plan.unsent), (ids_t{"4-0"}));
  EXPECT_EQ(plan.first_id, "1-0");
  EXPECT_EQ(plan.last_id, "3-0");
  EXPECT_EQ(plan.bytes, 120u); // of what goes, not of what waits
}

TEST(window_plan, entries_split_per_node_in_stream_order) {
  auto plan = plan_window({entry("1-0", "n1-a", 10), entry("2-0", "n0-b", 10),
                           entry("3-0", "n1-c", 10), entry("4-0", "n0-b", 10),
                           entry("5-0", "n1-a", 10)},
                          3, node_in_idcode);
  ASSERT_EQ(plan.requests_by_node.size(), 3u);
  ASSERT_EQ(plan.requests_by_node[0].size(), 1u);
  ASSERT_EQ(plan.requests_by_node[1].size(), 1u);
  EXPECT_EQ(ids(plan.requests_by_node[0][0]), (ids_t{"2-0", "4-0"}));
  EXPECT_EQ(ids(plan.requests_by_node[1][0]), (ids_t{"1-0", "3-0", "5-0"}));
  EXPECT_TRUE(plan.requests_by_node[2].empty()); // a node with nothing to apply
  EXPECT_EQ(plan.last_id, "5-0");
}

TEST(window_plan, a_nodes_entries_split_into_requests_of_at_most_request_bytes) {
  window_limits limits{256, 1000, 100};
  auto plan = plan_window({entry("1-0", "n0-a", 60), entry("2-0", "n1-a", 60),
                           entry("3-0", "n0-a", 40), entry("4-0", "n0-a", 1),
                           entry("5-0", "n0-a", 150), entry("6-0", "n0-a", 10),
                           entry("7-0", "n1-a", 60)},
                          2, node_in_idcode, limits);
  // 60 + 40 = 100 fits; 1 more would not; 150 alone is over but still goes, alone.
  ASSERT_EQ(plan.requests_by_node[0].size(), 4u);
  EXPECT_EQ(ids(plan.requests_by_node[0][0]), (ids_t{"1-0", "3-0"}));
  EXPECT_EQ(ids(plan.requests_by_node[0][1]), (ids_t{"4-0"}));
  EXPECT_EQ(ids(plan.requests_by_node[0][2]), (ids_t{"5-0"}));
  EXPECT_EQ(ids(plan.requests_by_node[0][3]), (ids_t{"6-0"}));
  ASSERT_EQ(plan.requests_by_node[1].size(), 2u);
  EXPECT_EQ(ids(plan.requests_by_node[1][0]), (ids_t{"2-0"}));
  EXPECT_EQ(ids(plan.requests_by_node[1][1]), (ids_t{"7-0"}));
  for (const auto& requests : plan.requests_by_node)
    for (const auto& request : requests)
      EXPECT_FALSE(request.empty());
  EXPECT_TRUE(plan.unsent.empty());
  EXPECT_EQ(plan.last_id, "7-0");
}

TEST(window_plan, entries_keep_their_fields) {
  auto e = entry("1-0", "n0-a", 3);
  e.kind = store::outbox_kind::ask;
  auto plan = plan_window({e}, 1, one_node);
  ASSERT_EQ(plan.requests_by_node[0].size(), 1u);
  ASSERT_EQ(plan.requests_by_node[0][0].size(), 1u);
  const auto& got = plan.requests_by_node[0][0][0];
  EXPECT_EQ(got.id, "1-0");
  EXPECT_EQ(got.idcode, "n0-a");
  EXPECT_EQ(got.kind, store::outbox_kind::ask);
  EXPECT_EQ(got.batch, "xxx");
}

TEST(window_plan, next_read_count_is_a_window_of_bytes_at_the_average_size) {
  window_limits limits{256, 1000, 100};
  // Batch and idcode bytes: (96 + 4 + 196 + 4) / 2 = 150 -> 1000 / 150 = 6.
  EXPECT_EQ(
      next_read_count({entry("1-0", "n0-a", 96), entry("2-0", "n0-a", 196)}, limits), 6u);
}

TEST(window_plan, next_read_count_is_at_least_one_and_at_most_the_window) {
  window_limits limits{256, 1000, 100};
  EXPECT_EQ(next_read_count({entry("1-0", "n0-a", 5000)}, limits), 1u);
  EXPECT_EQ(next_read_count({entry("1-0", "", 0)}, limits), 256u); // average 0 -> 1 byte
  EXPECT_EQ(next_read_count({entry("1-0", "n0-a", 0)}, limits), 250u);
  EXPECT_EQ(next_read_count({entry("1-0", "n0-a", 0)}, window_limits{8, 1000, 100}), 8u);
  EXPECT_EQ(next_read_count({}, limits), 1u);
}

TEST(window_plan, default_limits_are_the_links) {
  window_limits limits;
  EXPECT_EQ(limits.window, 256u);
  EXPECT_EQ(limits.window_bytes, std::size_t{16} << 20);
  EXPECT_EQ(limits.request_bytes, std::size_t{512} << 10);
  // 16 MiB of 1 KiB entries is more than a window: the window bounds the read.
  EXPECT_EQ(next_read_count({entry("1-0", "", 1024)}), 256u);
  // Of 1 MiB entries, 16.
  EXPECT_EQ(next_read_count({entry("1-0", "", 1 << 20)}), 16u);
}

} // namespace
} // namespace simsync
