#include "core/lww_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>

namespace simsync::core {
namespace {

stamped_card live(std::uint64_t hlc, const std::string& card,
                  const std::string& carrier = "carrier-a",
                  const std::string& line = "+8613800138000") {
  return stamped_card{stamp{hlc, carrier, line}, false, content_hash::of(card), card, {}};
}

/// A tombstone whose author had seen everything before it: it removes the
/// version stamped (hlc - 1) or earlier, whatever it was.
stamped_card tombstone(std::uint64_t hlc, const std::string& carrier = "carrier-a",
                       const std::string& line = "+8613800138000") {
  stamp st{hlc, carrier, line};
  return stamped_card{st, true, content_hash{}, "", st};
}

/// A tombstone whose author had seen the version `removes` and nothing later.
stamped_card tombstone_of(std::uint64_t hlc, const stamp& removes,
                          const std::string& carrier = "carrier-b") {
  return stamped_card{stamp{hlc, carrier, "+8618600186000"}, true, content_hash{}, "",
                      removes};
}

// -- single changes ------------------------------------------------------------

TEST(lww_map, first_change_is_applied) {
  lww_map m;
  EXPECT_EQ(m.apply("u", live(1, "A")), apply_outcome::applied);
  ASSERT_NE(m.get("u"), nullptr);
  EXPECT_EQ(m.get("u")->card, "A");
  EXPECT_EQ(m.get("other"), nullptr);
  EXPECT_EQ(m.size(), 1u);
}

TEST(lww_map, newer_different_content_wins) {
  lww_map m;
  m.apply("u", live(1, "A"));
  EXPECT_EQ(m.apply("u", live(2, "B")), apply_outcome::applied);
  EXPECT_EQ(m.get("u")->card, "B");
  EXPECT_EQ(m.history_size(), 0u);
}

TEST(lww_map, duplicate_changes_nothing) {
  lww_map m;
  m.apply("u", live(1, "A"));
  lww_map before = m;
  EXPECT_EQ(m.apply("u", live(1, "A")), apply_outcome::identical);
  EXPECT_EQ(m, before);
}

TEST(lww_map, older_different_content_is_stale_and_kept_in_history_once) {
  lww_map m;
  m.apply("u", live(5, "B"));
  lww_map before = m;
  auto loser = live(3, "A", "carrier-b", "+8618600186000");
  EXPECT_EQ(m.apply("u", loser), apply_outcome::stale);
  EXPECT_EQ(m.apply("u", loser), apply_outcome::stale);
  EXPECT_EQ(m, before);
  ASSERT_EQ(m.history("u").size(), 1u);
  EXPECT_EQ(m.history("u")[0].card, "A");
  EXPECT_EQ(m.history("u")[0].st, loser.st);
  EXPECT_TRUE(m.history("v").empty());
}

TEST(lww_map, older_same_content_is_identical_and_not_history) {
  lww_map m;
  m.apply("u", live(5, "A"));
  EXPECT_EQ(m.apply("u", live(3, "A", "carrier-b")), apply_outcome::identical);
  EXPECT_EQ(m.get("u")->st.hlc, 5u);
  EXPECT_EQ(m.history_size(), 0u);
}

TEST(lww_map, newer_same_content_is_identical_but_takes_the_stamp) {
  lww_map m;
  m.apply("u", live(1, "A"));
  EXPECT_EQ(m.apply("u", live(4, "A", "carrier-b")), apply_outcome::identical);
  EXPECT_EQ(m.get("u")->st, (stamp{4, "carrier-b", "+8613800138000"}));
  // Had the stamp stayed at 1, this concurrent edit would win here but lose
  // on a replica that saw stamp 4 first.
  EXPECT_EQ(m.apply("u", live(2, "C")), apply_outcome::stale);
}

TEST(lww_map, carrier_breaks_hlc_ties) {
  lww_map m;
  m.apply("u", live(7, "A", "carrier-a"));
  EXPECT_EQ(m.apply("u", live(7, "B", "carrier-b")), apply_outcome::applied);
  EXPECT_EQ(m.apply("u", live(7, "C", "carrier-a")), apply_outcome::stale);
  EXPECT_EQ(m.get("u")->card, "B");
}

TEST(lww_map, tombstone_deletes_and_blocks_older_resurrection) {
  lww_map m;
  m.apply("u", live(1, "A"));
  EXPECT_EQ(m.apply("u", tombstone(2)), apply_outcome::applied);
  EXPECT_TRUE(m.get("u")->deleted);
  EXPECT_TRUE(m.live_uids().empty());
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.apply("u", live(1, "A")), apply_outcome::stale);
  EXPECT_TRUE(m.get("u")->deleted);
  EXPECT_EQ(m.apply("u", tombstone(3)), apply_outcome::identical);
}

TEST(lww_map, newer_live_change_resurrects_a_tombstone) {
  lww_map m;
  m.apply("u", tombstone(2));
  EXPECT_EQ(m.apply("u", live(3, "A")), apply_outcome::applied);
  EXPECT_FALSE(m.get("u")->deleted);
}

TEST(lww_map, an_edit_the_remover_had_not_seen_outlives_a_later_tombstone) {
  // Line B saw v1 and removes it at hlc 9; line A's edit v2 at hlc 5 came after v1.
  auto v1 = live(1, "A");
  auto v2 = live(5, "B");
  auto removal = tombstone_of(9, v1.st);
  lww_map at_a; // holds v2 when the removal arrives
  at_a.apply("u", v1);
  at_a.apply("u", v2);
  EXPECT_EQ(at_a.apply("u", removal), apply_outcome::stale);
  EXPECT_EQ(at_a.get("u")->card, "B");
  ASSERT_EQ(at_a.history("u").size(), 1u);
  EXPECT_TRUE(at_a.history("u")[0].deleted);
  lww_map at_b; // removed v1 before v2 arrived
  at_b.apply("u", v1);
  at_b.apply("u", removal);
  EXPECT_EQ(at_b.apply("u", v2), apply_outcome::applied);
  EXPECT_EQ(at_a, at_b);
  // A removal of v2 itself, by a line that saw it, does remove it.
  EXPECT_EQ(at_a.apply("u", tombstone_of(10, v2.st)), apply_outcome::applied);
  EXPECT_TRUE(at_a.get("u")->deleted);
}

TEST(lww_map, a_tombstone_keeps_out_the_version_it_removed_and_older_ones) {
  auto v1 = live(1, "A");
  auto v2 = live(5, "B");
  lww_map m;
  m.apply("u", v2);
  m.apply("u", tombstone_of(6, v2.st));
  EXPECT_EQ(m.apply("u", v2), apply_outcome::stale); // a resent window
  EXPECT_EQ(m.apply("u", v1), apply_outcome::stale);
  EXPECT_TRUE(m.get("u")->deleted);
}

TEST(lww_map, tombstone_for_unknown_uid_is_held) {
  lww_map m;
  EXPECT_EQ(m.apply("u", tombstone(2)), apply_outcome::applied);
  EXPECT_EQ(m.apply("u", live(1, "A")), apply_outcome::stale);
  EXPECT_TRUE(m.get("u")->deleted);
}

TEST(lww_map, live_uids_are_sorted_and_skip_tombstones) {
  lww_map m;
  m.apply("c", live(1, "C"));
  m.apply("a", live(1, "A"));
  m.apply("b", tombstone(1));
  EXPECT_EQ(m.live_uids(), (std::vector<std::string>{"a", "c"}));
}

TEST(lww_map, equality_compares_bytes_and_stamps) {
  lww_map a, b;
  a.apply("u", live(1, "A"));
  b.apply("u", live(1, "A"));
  EXPECT_EQ(a, b);
  lww_map c;
  c.apply("u", live(2, "A"));
  EXPECT_NE(a, c);
  lww_map d;
  d.apply("u", live(1, "A"));
  d.apply("v", live(1, "A"));
  EXPECT_NE(a, d);
}

// -- convergence property --------------------------------------------------------

/// Random changes to a small uid pool from several lines at several carriers,
/// with few distinct contents so that equal-content changes are common.
std::vector<std::pair<std::string, stamped_card>> random_changes(std::mt19937_64& rng) {
  const std::vector<std::string> carriers{"carrier-a", "carrier-b", "carrier-c"};
  const std::vector<std::string> lines{"+8613800138000", "+8618600186000"};
  const std::vector<std::string> contents{"BEGIN:VCARD\r\nFN:A\r\nEND:VCARD\r\n",
                                          "BEGIN:VCARD\r\nFN:B\r\nEND:VCARD\r\n",
                                          "BEGIN:VCARD\r\nFN:C\r\nEND:VCARD\r\n"};
  auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  std::set<stamp> used; // a stamp names one change
  std::vector<std::pair<std::string, stamped_card>> out;
  std::size_t count = 5 + pick(40);
  while (out.size() < count) {
    stamp st{1 + pick(12) * hlc_logical_per_ms + pick(3), carriers[pick(carriers.size())],
             lines[pick(lines.size())]};
    if (!used.insert(st).second)
      continue;
    std::string uid = "uid-" + std::to_string(pick(4));
    if (pick(4) == 0) {
      // Its author had seen some version up to its own time, or none at all.
      stamp removes{pick(st.hlc + 1), carriers[pick(carriers.size())],
                    lines[pick(lines.size())]};
      if (removes.hlc == st.hlc)
        removes = st;
      out.emplace_back(uid, stamped_card{st, true, content_hash{}, "", removes});
    } else {
      const auto& card = contents[pick(contents.size())];
      out.emplace_back(uid, stamped_card{st, false, content_hash::of(card), card, {}});
    }
  }
  return out;
}

/// The state every replica must reach: per uid, the greatest change in the
/// order of supersedes().
std::map<std::string, stamped_card>
expected_state(const std::vector<std::pair<std::string, stamped_card>>& changes) {
  std::map<std::string, stamped_card> out;
  for (const auto& [uid, change] : changes) {
    auto it = out.find(uid);
    if (it == out.end() || supersedes(change, it->second))
      out[uid] = change;
  }
  return out;
}

void check_convergence(std::uint64_t seed) {
  SCOPED_TRACE("rerun with SIMSYNC_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto changes = random_changes(rng);
  std::vector<lww_map> replicas(3);
  for (auto& replica : replicas) {
    auto delivery = changes;
    // At-least-once delivery: some changes arrive again.
    for (const auto& change : changes)
      for (auto extra = rng() % 3; extra > 0; --extra)
        delivery.push_back(change);
    std::shuffle(delivery.begin(), delivery.end(), rng);
    for (const auto& [uid, change] : delivery)
      replica.apply(uid, change);
  }
  EXPECT_EQ(replicas[0], replicas[1]);
  EXPECT_EQ(replicas[0], replicas[2]);
  auto expected = expected_state(changes);
  for (const auto& replica : replicas) {
    ASSERT_EQ(replica.size(), expected.size());
    for (const auto& [uid, winner] : expected) {
      const stamped_card* held = replica.get(uid);
      ASSERT_NE(held, nullptr) << uid;
      EXPECT_EQ(held->st, winner.st) << uid;
      EXPECT_EQ(held->card, winner.card) << uid;
      for (const auto& loser : replica.history(uid))
        EXPECT_TRUE(supersedes(*held, loser)) << uid;
    }
  }
}

TEST(lww_map_property, replicas_converge_whatever_the_order_and_duplication) {
  if (const char* env = std::getenv("SIMSYNC_SEED")) {
    check_convergence(std::strtoull(env, nullptr, 10));
    return;
  }
  // Fixed seeds keep CI reproducible; a failure names the seed to rerun.
  for (std::uint64_t i = 0; i < 200; ++i) {
    check_convergence(0x5117'5eedULL + i);
    if (HasFailure())
      return;
  }
}

} // namespace
} // namespace simsync::core
