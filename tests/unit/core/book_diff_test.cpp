#include "core/book_diff.hpp"

#include <gtest/gtest.h>

namespace simsync::core {
namespace {

book_entry entry(const std::string& uid, const std::string& card) {
  return book_entry{uid, content_hash::of(card), card};
}

using uids = std::vector<std::string>;

TEST(book_diff, empty_snapshot_against_empty_base_is_empty) {
  auto d = diff_book({}, {});
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(d.changed.empty());
  EXPECT_TRUE(d.removed.empty());
  EXPECT_EQ(d.unchanged, 0u);
}

TEST(book_diff, sorts_cards_into_added_changed_removed_unchanged) {
  book_base base{{"a", content_hash::of("A1")},
                 {"b", content_hash::of("B1")},
                 {"c", content_hash::of("C1")},
                 {"d", content_hash::of("D1")}};
  std::vector<book_entry> snapshot{entry("b", "B2"), entry("a", "A1"), entry("x", "X1"),
                                   entry("w", "W1")};
  auto d = diff_book(snapshot, base);
  EXPECT_EQ(d.added, (uids{"x", "w"}));
  EXPECT_EQ(d.changed, (uids{"b"}));
  EXPECT_EQ(d.removed, (uids{"c", "d"}));
  EXPECT_EQ(d.unchanged, 1u);
}

TEST(book_diff, unchanged_book_is_a_no_op) {
  std::vector<book_entry> snapshot{entry("a", "A"), entry("b", "B")};
  book_base base;
  for (const auto& e : snapshot)
    base[e.uid] = e.hash;
  auto d = diff_book(snapshot, base);
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(d.changed.empty());
  EXPECT_TRUE(d.removed.empty());
  EXPECT_EQ(d.unchanged, 2u);
}

TEST(book_diff, contacts_outside_the_base_are_never_removed) {
  // "z" came from another line and was never applied here: not in the base,
  // so a snapshot lacking it does not delete it.
  book_base base{{"a", content_hash::of("A")}};
  auto d = diff_book({entry("a", "A")}, base);
  EXPECT_TRUE(d.removed.empty());
}

TEST(book_diff, empty_snapshot_removes_the_whole_base) {
  book_base base{{"b", content_hash::of("B")}, {"a", content_hash::of("A")}};
  auto d = diff_book({}, base);
  EXPECT_EQ(d.removed, (uids{"a", "b"}));
  EXPECT_EQ(d.unchanged, 0u);
}

TEST(book_diff, repeated_uid_counts_once_at_first_occurrence) {
  book_base base{{"a", content_hash::of("A")}};
  auto d = diff_book(
      {entry("a", "A"), entry("a", "A2"), entry("n", "N"), entry("n", "N")}, base);
  EXPECT_EQ(d.unchanged, 1u);
  EXPECT_TRUE(d.changed.empty());
  EXPECT_EQ(d.added, (uids{"n"}));
}

} // namespace
} // namespace simsync::core
