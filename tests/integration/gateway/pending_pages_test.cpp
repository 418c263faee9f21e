// GET /pending in pages, its ETag and If-None-Match, and the ack after the
// last page: a real carrierd and redis-server, driven over HTTP.
#include "tests/integration/gateway/gateway_fixture.hpp"

using namespace simsync;
using namespace simsync::testing;

namespace {

struct pending_pages : shared_deployment<pending_pages> {
  static std::vector<std::string> carriers() { return {"carrier-a"}; }

  /// A person with two lines; the first has pushed `cards` cards.
  void SetUp() override {
    ++person;
    auto n = std::to_string(person);
    one = http.register_line("carrier-a", "+861380000" + n + "01", 200 + person);
    two = http.register_line("carrier-a", "+861380000" + n + "02", 200 + person);
    ASSERT_FALSE(two.token.empty());
    ASSERT_EQ(http.push(one, book(7)).status, 200);
  }
  static std::string book(int n, const std::string& extra = "") {
    std::string out;
    for (int i = 1; i <= n; ++i)
      out += card("u" + std::to_string(i), "Card " + std::to_string(i));
    return out + extra;
  }
  static std::size_t card_count(const http_answer& a) {
    auto cards = a.json.value("cards", "");
    std::size_t n = 0;
    for (auto at = cards.find("BEGIN:VCARD"); at != std::string::npos;
         at = cards.find("BEGIN:VCARD", at + 1))
      ++n;
    return n;
  }
  static inline int person = 0;
  line one, two;
};

/// The calls in Redis's slow log of the script function named `prefix`...
std::size_t script_calls(simsync::store::reply_view log, std::string_view prefix) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    auto args = log[i][3];
    if (args.size() > 1 && args[1].str().substr(0, prefix.size()) == prefix)
      ++n;
  }
  return n;
}

} // namespace

TEST_F(pending_pages, three_pages_then_an_ack_removes_exactly_what_they_held) {
  auto p1 = http.pending(two, "?limit=3");
  ASSERT_EQ(p1.status, 200) << p1;
  EXPECT_EQ(card_count(p1), 3u);
  EXPECT_EQ(p1.json.value("added", -1), 7) << "counts are the whole fetch's";
  ASSERT_TRUE(p1.json.contains("next"));
  EXPECT_FALSE(p1.etag.empty());
  auto cursor = p1.json.value("cursor", "");

  // A new card arrives between pages: not part of this fetch.
  ASSERT_EQ(http.push(one, card("u8", "Card 8"), "", "POST").status, 200);
  auto p2 = http.pending(two, "?limit=3&next=" + p1.json.value("next", ""));
  ASSERT_EQ(p2.status, 200) << p2;
  EXPECT_EQ(card_count(p2), 3u);
  EXPECT_EQ(p2.json.value("cursor", ""), cursor);
  EXPECT_EQ(p2.json.value("added", -1), 7);
  auto p3 = http.pending(two, "?limit=3&next=" + p2.json.value("next", ""));
  ASSERT_EQ(p3.status, 200) << p3;
  EXPECT_EQ(card_count(p3), 1u);
  EXPECT_EQ(p3.json.value("cursor", ""), cursor);
  EXPECT_FALSE(p3.json.contains("next")) << "the last page has no next";
  for (const auto* p : {&p1, &p2, &p3})
    EXPECT_EQ(p->json.value("cards", "").find("UID:u8"), std::string::npos);

  // And one after the last page.
  ASSERT_EQ(http.push(one, card("u9", "Card 9"), "", "POST").status, 200);
  auto ack = http.ack(two, cursor, "apply");
  ASSERT_EQ(ack.status, 200) << ack;
  EXPECT_EQ(ack.json.value("acknowledged", -1), 7);
  auto rest = http.pending(two);
  ASSERT_EQ(rest.status, 200);
  EXPECT_EQ(rest.json.value("added", -1), 2);
  EXPECT_NE(rest.json.value("cards", "").find("UID:u8"), std::string::npos);
  EXPECT_NE(rest.json.value("cards", "").find("UID:u9"), std::string::npos);
  EXPECT_FALSE(rest.json.contains("next"));
}

TEST_F(pending_pages, without_a_limit_everything_comes_at_once) {
  auto all = http.pending(two);
  ASSERT_EQ(all.status, 200);
  EXPECT_EQ(card_count(all), 7u);
  EXPECT_FALSE(all.json.contains("next"));
}

TEST_F(pending_pages, a_mailbox_asked_for_whole_is_read_from_the_store_a_page_at_a_time) {
  // More changes than two of the pages the gateway asks the store for, so
  // that no one Redis call holds that Redis for the whole mailbox.
  ASSERT_EQ(http.push(one, book(2500)).status, 200);
  auto redis = d->redis("carrier-a").connect();
  ASSERT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "0"}));
  ASSERT_TRUE(redis.call({"SLOWLOG", "RESET"}));
  auto all = http.pending(two);
  auto log = redis.call({"SLOWLOG", "GET", "1000"});
  ASSERT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "10000"}));

  ASSERT_EQ(all.status, 200) << all;
  EXPECT_EQ(card_count(all), 2500u);
  EXPECT_EQ(all.json.value("added", -1), 2500);
  EXPECT_FALSE(all.json.contains("next"));
  ASSERT_TRUE(log) << describe(log.error());
  EXPECT_EQ(script_calls(log->view(), "fetch_pending_"), 3u) << "pages of 1,000 changes";
  auto ack = http.ack(two, all.json.value("cursor", ""), "apply");
  ASSERT_EQ(ack.status, 200) << ack;
  EXPECT_EQ(ack.json.value("acknowledged", -1), 2500);
}

TEST_F(pending_pages, the_ack_of_a_whole_mailbox_is_taken_from_the_store_in_steps) {
  ASSERT_EQ(http.push(one, book(2500)).status, 200);
  auto all = http.pending(two);
  ASSERT_EQ(all.status, 200) << all;
  auto redis = d->redis("carrier-a").connect();
  ASSERT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "0"}));
  ASSERT_TRUE(redis.call({"SLOWLOG", "RESET"}));
  auto ack = http.ack(two, all.json.value("cursor", ""), "apply");
  auto log = redis.call({"SLOWLOG", "GET", "1000"});
  ASSERT_TRUE(redis.call({"CONFIG", "SET", "slowlog-log-slower-than", "10000"}));

  ASSERT_EQ(ack.status, 200) << ack;
  EXPECT_EQ(ack.json.value("acknowledged", -1), 2500) << "every step's";
  ASSERT_TRUE(log) << describe(log.error());
  EXPECT_EQ(script_calls(log->view(), "ack_pending_"), 2u)
      << "steps of 2,000 of the fetch's 2,500";
  auto after = http.pending(two);
  ASSERT_EQ(after.status, 200);
  EXPECT_EQ(card_count(after), 0u);
  EXPECT_EQ(after.json.value("added", -1), 0);
}

TEST_F(pending_pages, not_modified_until_the_mailbox_changes) {
  auto first = http.pending(two);
  ASSERT_EQ(first.status, 200);
  ASSERT_FALSE(first.etag.empty());
  auto same = http.pending(two, "", {{"If-None-Match", first.etag}});
  EXPECT_EQ(same.status, 304) << same;
  EXPECT_TRUE(same.body.empty());
  EXPECT_EQ(same.etag, first.etag);

  ASSERT_EQ(http.push(one, card("u1", "Edited"), "", "POST").status, 200);
  auto changed = http.pending(two, "", {{"If-None-Match", first.etag}});
  ASSERT_EQ(changed.status, 200) << changed;
  EXPECT_NE(changed.etag, first.etag);
  EXPECT_NE(changed.json.value("cards", "").find("FN:Edited"), std::string::npos);
  // Another vCard version of the same mailbox is another representation.
  auto v4 = http.pending(two, "?version=4.0", {{"If-None-Match", changed.etag}});
  EXPECT_EQ(v4.status, 200);
}

TEST_F(pending_pages, a_304_leaves_the_previous_cursor_valid) {
  auto first = http.pending(two);
  ASSERT_EQ(http.pending(two, "", {{"If-None-Match", first.etag}}).status, 304);
  auto ack = http.ack(two, first.json.value("cursor", ""), "apply");
  EXPECT_EQ(ack.status, 200) << ack;
  EXPECT_EQ(ack.json.value("acknowledged", -1), 7);
  // The ack emptied the mailbox: the old ETag is no longer current.
  EXPECT_EQ(http.pending(two, "", {{"If-None-Match", first.etag}}).status, 200);
}

TEST_F(pending_pages, a_next_of_an_older_fetch_is_409) {
  auto old = http.pending(two, "?limit=2");
  ASSERT_TRUE(old.json.contains("next"));
  ASSERT_EQ(http.pending(two, "?limit=2").status, 200); // a new fetch
  auto stale = http.pending(two, "?limit=2&next=" + old.json.value("next", ""));
  EXPECT_EQ(stale.status, 409) << stale;
  EXPECT_TRUE(stale.is_problem()) << stale;
  EXPECT_EQ(stale.json.value("type", ""), "urn:simsync:problem:stale-cursor");
}

TEST_F(pending_pages, a_bad_limit_or_next_is_400) {
  for (const auto* q : {"?limit=0", "?limit=-1", "?limit=abc", "?limit=10001",
                        "?limit=1.5", "?limit=", "?limit=3&next=x", "?next=1"}) {
    auto a = http.pending(two, q);
    EXPECT_EQ(a.status, 400) << q << ": " << a;
    EXPECT_TRUE(a.is_problem()) << q;
  }
  EXPECT_EQ(http.pending(two, "?limit=10000").status, 200);
}
