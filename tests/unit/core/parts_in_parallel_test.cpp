#include "core/parts_in_parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using simsync::core::parts_in_parallel;

namespace {

/// The threads that ran parts of `count` items, having checked that every
/// item was given to exactly one part.
std::set<std::thread::id> threads_for(std::size_t count, std::size_t min_per_part) {
  std::vector<std::atomic<int>> seen(count);
  std::mutex m;
  std::set<std::thread::id> threads;
  parts_in_parallel(count, min_per_part, [&](std::size_t begin, std::size_t end) {
    EXPECT_LE(begin, end);
    EXPECT_LE(end, count);
    for (auto i = begin; i < end; ++i)
      ++seen[i];
    std::lock_guard<std::mutex> lock{m};
    threads.insert(std::this_thread::get_id());
  });
  for (std::size_t i = 0; i < count; ++i)
    EXPECT_EQ(seen[i].load(), 1) << "item " << i;
  return threads;
}

bool has_helpers() {
  return std::thread::hardware_concurrency() > 1;
}

} // namespace

TEST(parts_in_parallel, every_item_is_done_once) {
  for (std::size_t count : {0u, 1u, 999u, 2000u, 2001u, 50000u})
    threads_for(count, 1000);
}

TEST(parts_in_parallel, a_small_count_stays_on_the_calling_thread) {
  auto threads = threads_for(1999, 1000);
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(*threads.begin(), std::this_thread::get_id());
}

TEST(parts_in_parallel, a_large_count_uses_a_helper_when_the_machine_has_cores) {
  if (!has_helpers())
    GTEST_SKIP() << "one core: no helper to use";
  auto threads = threads_for(50000, 1000);
  EXPECT_GE(threads.size(), 2u);
  EXPECT_LE(threads.size(), std::thread::hardware_concurrency());
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 1u);
}

TEST(parts_in_parallel, a_failing_part_is_rethrown_and_its_helpers_are_free_again) {
  for (int round = 0; round < 3; ++round)
    EXPECT_THROW(parts_in_parallel(50000, 1000,
                                   [](std::size_t begin, std::size_t) {
                                     if (begin != 0)
                                       throw std::runtime_error("a helper's part failed");
                                   }),
                 std::runtime_error);
  if (has_helpers()) {
    EXPECT_GE(threads_for(50000, 1000).size(), 2u);
  }
}

TEST(parts_in_parallel, helpers_are_never_more_than_the_cores) {
  // Many books at once: no more threads run parts than the machine has cores,
  // the callers' own threads included only once each.
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::atomic<int> helper_parts{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      auto caller = std::this_thread::get_id();
      parts_in_parallel(50000, 1000, [&](std::size_t, std::size_t) {
        if (std::this_thread::get_id() == caller)
          return;
        ++helper_parts;
        int now = ++running;
        for (int seen = most.load();
             now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
        --running;
      });
    });
  for (auto& t : callers)
    t.join();
  EXPECT_LE(most.load(), static_cast<int>(std::thread::hardware_concurrency()) - 1);
  if (has_helpers()) {
    EXPECT_GE(helper_parts.load(), 1);
  }
}
