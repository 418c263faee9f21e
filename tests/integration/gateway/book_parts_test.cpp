// A book of more cards than a part (store/upload_parts.hpp) goes to the store
// in parts, through a real carrierd and redis-server: no one Redis call holds
// that Redis for the whole book, the answer counts the whole book, a re-sync
// sends only the cards the line does not hold as they are, and the
// mass-deletion guard still refuses it with nothing stored.
#include "store/upload_parts.hpp"
#include "tests/integration/gateway/gateway_fixture.hpp"

#include <algorithm>
#include <regex>

using namespace simsync;
using namespace simsync::testing;

namespace {

struct book_parts : shared_deployment<book_parts> {
  static std::vector<std::string> carriers() { return {"carrier-a"}; }

  void SetUp() override {
    ++person;
    auto n = std::to_string(person);
    one = http.register_line("carrier-a", "+861370000" + n + "01", 300 + person);
    two = http.register_line("carrier-a", "+861370000" + n + "02", 300 + person);
    ASSERT_FALSE(two.token.empty());
  }
  static std::string book(int from, int to) {
    std::string out;
    for (int i = from; i < to; ++i)
      out += card("u" + std::to_string(i), "Card " + std::to_string(i));
    return out;
  }
  static std::size_t uid_count(const std::string& cards, const std::string& prefix) {
    std::size_t n = 0;
    for (auto at = cards.find("UID:" + prefix); at != std::string::npos;
         at = cards.find("UID:" + prefix, at + 1))
      ++n;
    return n;
  }
  static inline int person = 0;
  line one, two;
};

/// Each `upload` script call in Redis's slow log (which keeps 32 of a call's
/// arguments, the last saying how many more), oldest first: its mode and its
/// number of arguments.
using upload_call = std::pair<std::string, std::size_t>;
std::vector<upload_call> upload_calls(store::reply_view log) {
  static const std::regex more{R"(\.\.\. \((\d+) more arguments\))"};
  std::vector<upload_call> out;
  for (std::size_t i = 0; i < log.size(); ++i) {
    auto args = log[i][3];
    if (args.size() < 2 || args[1].str().substr(0, 7) != "upload_")
      continue;
    std::size_t n = args.size();
    std::smatch m;
    std::string last(args[args.size() - 1].str());
    if (std::regex_match(last, m, more))
      n = args.size() - 1 + std::stoul(m[1]);
    // FCALL, the name, the key count, then idcode, line, proof, scope, mode.
    out.emplace_back(args[7].str(), n);
  }
  std::reverse(out.begin(), out.end()); // the log lists the newest first
  return out;
}

} // namespace

TEST_F(book_parts, a_book_larger_than_a_part_is_stored_by_calls_of_at_most_a_part) {
  auto redis = d->redis("carrier-a").connect();
  ASSERT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "0"}));
  ASSERT_TRUE(redis.call({"SLOWLOG", "RESET"}));
  auto put = http.push(one, book(0, 5000));
  auto log = redis.call({"SLOWLOG", "GET", "10000"});
  ASSERT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "10000"}));

  ASSERT_EQ(put.status, 200) << put;
  EXPECT_EQ(put.json.value("added", -1), 5000) << "the whole book's counts";
  ASSERT_TRUE(log) << describe(log.error());
  auto calls = upload_calls(log->view());
  // FCALL, its name, the key count, 13 arguments, then the items: a compare
  // of 5,000 uids (after their hashes, in one argument); no prune, since the
  // line holds nothing; then parts of 2,000, 2,000 and 1,000 cards (after
  // the number of the line's origin; 3 items each), in that order.
  EXPECT_EQ(calls, (std::vector<upload_call>{{"compare", 17 + 5000},
                                             {"delta", 17 + 3 * 2000},
                                             {"delta", 17 + 3 * 2000},
                                             {"delta", 17 + 3 * 1000}}));
  static_assert(store::upload_part_cards == 2000);
  static_assert(store::compare_part_cards == 5000);

  auto stored = http.contacts(one);
  ASSERT_EQ(stored.status, 200);
  EXPECT_EQ(uid_count(stored.body, "u"), 5000u);
  auto counts = http.update(two);
  ASSERT_EQ(counts.status, 200) << counts;
  EXPECT_EQ(counts.json.value("added", -1), 5000);
}

TEST_F(book_parts, a_resync_sends_the_store_only_what_changed) {
  ASSERT_EQ(http.push(one, book(0, 5000)).status, 200);
  auto redis = d->redis("carrier-a").connect();
  auto calls_of = [&](const std::string& body) {
    EXPECT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "0"}));
    EXPECT_TRUE(redis.call({"SLOWLOG", "RESET"}));
    auto put = http.push(one, body);
    auto log = redis.call({"SLOWLOG", "GET", "10000"});
    EXPECT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "10000"}));
    EXPECT_EQ(put.status, 200) << put;
    EXPECT_TRUE(log) << describe(log.error());
    auto calls = log ? upload_calls(log->view()) : std::vector<upload_call>{};
    return std::pair{put, calls};
  };

  auto [same, alone] = calls_of(book(0, 5000));
  EXPECT_EQ(same.json.value("unchanged", -1), 5000) << same;
  EXPECT_EQ(alone, (std::vector<upload_call>{{"compare", 17 + 5000}}))
      << "the compare alone";

  // u4321 changed: the compare, then a part of that one card.
  auto edited = book(0, 5000);
  auto at = edited.find("Card 4321");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, 9, "Card 4321, edited");
  auto [changed, two_calls] = calls_of(edited);
  EXPECT_EQ(changed.json.value("changed", -1), 1) << changed;
  EXPECT_EQ(changed.json.value("unchanged", -1), 4999);
  EXPECT_EQ(two_calls,
            (std::vector<upload_call>{{"compare", 17 + 5000}, {"delta", 17 + 3}}));
  auto stored = http.contacts(one);
  ASSERT_EQ(stored.status, 200);
  EXPECT_NE(stored.body.find("Card 4321, edited"), std::string::npos);

  // The last card left out: the compare, scans of what the line holds (a
  // cursor and a page's size each), then the prune that removes it, naming
  // that card alone.
  auto shorter_book = book(0, 4999);
  shorter_book.replace(shorter_book.find("Card 4321"), 9, "Card 4321, edited");
  auto [shorter, pruned] = calls_of(shorter_book);
  EXPECT_EQ(shorter.json.value("removed", -1), 1) << shorter;
  EXPECT_EQ(shorter.json.value("unchanged", -1), 4999);
  ASSERT_GE(pruned.size(), 3u);
  EXPECT_EQ(pruned.front(), (upload_call{"compare", 17 + 4999}));
  for (std::size_t i = 1; i + 1 < pruned.size(); ++i)
    EXPECT_EQ(pruned[i], (upload_call{"scan", 16 + 2}));
  EXPECT_EQ(pruned.back(), (upload_call{"prune", 16 + 1}));
  EXPECT_EQ(http.contacts(one).body.find("UID:u4999"), std::string::npos);
}

TEST_F(book_parts, the_guard_refuses_a_book_in_parts_and_nothing_is_stored) {
  ASSERT_EQ(http.push(one, book(0, 2500)).status, 200);
  // Another book of 2,100 cards, none of them the first's: it would remove
  // all 2,500, and is refused before any of its parts is stored.
  auto held = http.push(one, book(10000, 12100));
  EXPECT_EQ(held.status, 409) << held;
  EXPECT_EQ(held.json.value("type", ""), "urn:simsync:problem:mass-deletion");
  EXPECT_EQ(held.json.value("would_remove", -1), 2500);
  auto stored = http.contacts(one);
  ASSERT_EQ(stored.status, 200);
  EXPECT_EQ(uid_count(stored.body, "u"), 2500u);
  EXPECT_EQ(uid_count(stored.body, "u1"), 1111u) << "u1, u10-u19, u100-u199, u1000-u1999";
  EXPECT_EQ(stored.body.find("UID:u10000"), std::string::npos);

  auto confirmed = http.send(
      one.carrier, "PUT", gateway_client::lines(one) + "/contacts?confirm_removals=2500",
      one.token, book(10000, 12100), "text/vcard");
  ASSERT_EQ(confirmed.status, 200) << confirmed;
  EXPECT_EQ(confirmed.json.value("removed", -1), 2500);
  EXPECT_EQ(confirmed.json.value("added", -1), 2100);
  EXPECT_EQ(uid_count(http.contacts(one).body, "u"), 2100u);
}
