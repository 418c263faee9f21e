// Subscriber records as the admin API reads them: every field checked before
// anything is written.
#include "net/subscriber_input.hpp"

#include <gtest/gtest.h>

using namespace simsync::net;

namespace {

nlohmann::json record() {
  return {{"msisdn", "+8613800138000"},
          {"iccid", "89860012345678901234"},
          {"name", " 张  伟 "},
          {"id_number", "11010519491231002x"}};
}

} // namespace

TEST(subscriber_input, a_record_is_normalized_and_active_by_default) {
  auto parsed = parse_subscriber(record());
  ASSERT_TRUE(parsed.input) << parsed.error;
  EXPECT_EQ(parsed.input->msisdn, "+8613800138000");
  EXPECT_EQ(parsed.input->person.name, "张 伟");
  EXPECT_EQ(parsed.input->person.id_number, "11010519491231002X");
  EXPECT_TRUE(parsed.input->active);
}

TEST(subscriber_input, each_bad_field_is_named) {
  struct bad_case {
    const char* field;
    nlohmann::json value; ///< null: left out
  };
  for (const auto& c : std::vector<bad_case>{{"msisdn", "13800138000"},
                                             {"msisdn", nullptr},
                                             {"iccid", "12345"},
                                             {"iccid", 8986001234},
                                             {"name", "  "},
                                             {"name", nullptr},
                                             {"id_number", "11010519491231002A"},
                                             {"active", "yes"}}) {
    auto r = record();
    if (c.value.is_null())
      r.erase(c.field);
    else
      r[c.field] = c.value;
    auto parsed = parse_subscriber(r);
    EXPECT_FALSE(parsed.input) << c.field;
    EXPECT_EQ(parsed.error.rfind(std::string(c.field) + ":", 0), 0u) << parsed.error;
  }
}

TEST(subscriber_input, the_path_names_the_msisdn_and_the_body_may_not_contradict_it) {
  auto body = record();
  body.erase("msisdn");
  EXPECT_TRUE(parse_subscriber(body, std::string("+8613900139000")).input);
  EXPECT_FALSE(parse_subscriber(record(), std::string("+8613900139000")).input);
}

TEST(subscriber_input, ndjson_reports_every_bad_line_by_number) {
  auto good = record().dump();
  auto bad = record();
  bad["iccid"] = "1";
  auto parsed =
      parse_subscriber_ndjson(good + "\n\n" + bad.dump() + "\r\n{not json\n" + good);
  EXPECT_EQ(parsed.inputs.size(), 2u);
  ASSERT_EQ(parsed.errors.size(), 2u);
  EXPECT_EQ(parsed.errors[0].first, 3u);
  EXPECT_EQ(parsed.errors[1].first, 4u);
  EXPECT_FALSE(parse_subscriber_ndjson("\n \n").errors.empty());
}

TEST(subscriber_input, csv_takes_columns_in_any_order_and_quoted_fields) {
  auto parsed =
      parse_subscriber_csv("id_number,name,msisdn,iccid,active\r\n"
                           "TEST100001,\"Wang, \"\"Jr\"\"\",+8613800138001,"
                           "89860012345678901234,false\r\n"
                           "TEST100002,Li,+8613800138002,89860012345678901234,\n");
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0].second;
  ASSERT_EQ(parsed.inputs.size(), 2u);
  EXPECT_EQ(parsed.inputs[0].person.name, "Wang, \"Jr\"");
  EXPECT_FALSE(parsed.inputs[0].active);
  EXPECT_TRUE(parsed.inputs[1].active);
}

TEST(subscriber_input, csv_refuses_a_missing_column_a_short_row_and_an_open_quote) {
  EXPECT_FALSE(
      parse_subscriber_csv("msisdn,iccid,name\n+8613800138001,8986,Li\n").errors.empty());
  auto parsed =
      parse_subscriber_csv("msisdn,iccid,name,id_number\n"
                           "+8613800138001,89860012345678901234,Li\n"
                           "+8613800138002,89860012345678901234,\"Li,TEST100002\n");
  ASSERT_EQ(parsed.errors.size(), 2u);
  EXPECT_EQ(parsed.errors[0].first, 2u);
  EXPECT_EQ(parsed.errors[1].first, 3u);
}
