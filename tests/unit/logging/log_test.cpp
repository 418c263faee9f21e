#include "logging/log.hpp"
#include "logging/throttle.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace simsync::logging {
namespace {

TEST(log_line, text_is_the_event_then_key_value_pairs_quoted_when_needed) {
  auto line = render(format::text, "peer_link_down",
                     {{"peer", "carrier-b"},
                      {"reason", "cannot reach b1 at 127.0.0.1:7001: \"refused\""},
                      {"count", 3},
                      {"empty", ""},
                      {"up", false}});
  EXPECT_EQ(line, "peer_link_down peer=carrier-b reason=\"cannot reach b1 at "
                  "127.0.0.1:7001: \\\"refused\\\"\" count=3 empty=\"\" up=false");
}

TEST(log_line, a_newline_in_a_value_cannot_start_a_line_of_its_own) {
  auto line = render(format::text, "request_failed", {{"reason", "a\nfake_event x=1"}});
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_EQ(line, "request_failed reason=\"a\\nfake_event x=1\"");
}

TEST(log_line, json_is_one_object_whose_members_are_the_event_and_its_fields) {
  // render() gives what follows the time and level: close it as write() does.
  auto inside = render(format::json, "redis_lost",
                       {{"owner", "account_shard/3"}, {"reason", "a\"b\n"}});
  auto parsed = nlohmann::json::parse("{" + inside);
  EXPECT_EQ(parsed["event"], "redis_lost");
  EXPECT_EQ(parsed["owner"], "account_shard/3");
  EXPECT_EQ(parsed["reason"], "a\"b\n");
  EXPECT_EQ(inside.find('\n'), std::string::npos) << inside;
}

TEST(log_settings, levels_and_formats_are_known_by_their_config_names) {
  EXPECT_EQ(level_named("warn"), level::warn);
  EXPECT_EQ(level_named("debug"), level::debug);
  EXPECT_FALSE(level_named("warning"));
  EXPECT_EQ(format_named("json"), format::json);
  EXPECT_FALSE(format_named("xml"));
}

TEST(log_settings, events_below_the_threshold_are_not_written) {
  configure(level::warn, format::text);
  EXPECT_FALSE(enabled(level::info));
  EXPECT_TRUE(enabled(level::warn));
  EXPECT_TRUE(enabled(level::error));
  configure(level::info, format::text);
  EXPECT_TRUE(enabled(level::info));
  EXPECT_FALSE(enabled(level::debug));
}

TEST(log_throttle, one_line_per_interval_and_the_next_counts_those_left_out) {
  throttle t{std::chrono::milliseconds{200}};
  EXPECT_EQ(t.admit(), std::optional<std::uint64_t>{0});
  EXPECT_FALSE(t.admit());
  EXPECT_FALSE(t.admit());
  std::this_thread::sleep_for(std::chrono::milliseconds{250});
  EXPECT_EQ(t.admit(), std::optional<std::uint64_t>{2});
  EXPECT_FALSE(t.admit());
}

} // namespace
} // namespace simsync::logging
