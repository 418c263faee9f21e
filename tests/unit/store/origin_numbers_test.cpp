#include "store/origin_numbers.hpp"

#include "core/record.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace simsync;

namespace {

/// A live record of `line` at carrier-a stamped `hlc`, its origin written out.
std::string record_of(const std::string& line, std::uint64_t hlc = 1700000000000000) {
  return core::encode_live_record(hlc, core::content_hash::of("card"), "carrier-a", line,
                                  "card");
}

/// `record` appended by `numbering`.
std::string numbered(store::origin_numbering& numbering, const std::string& record) {
  std::string out;
  numbering.append(out, record, core::record_origin(record));
  return out;
}

TEST(origin_numbering, a_deliverys_records_take_their_origins_numbers_claimed_once) {
  store::origin_numbering numbering;
  const auto number = core::origin_number("carrier-a", "line-1");
  for (int i = 0; i < 2; ++i) {
    auto out = numbered(numbering, record_of("line-1"));
    EXPECT_EQ(core::record_origin_number(out), number);
    const core::origin_names names{{number, "carrier-a|line-1"}};
    std::string written_out;
    ASSERT_TRUE(core::append_record_written_out(written_out, out, &names));
    EXPECT_EQ(written_out, record_of("line-1"));
  }
  numbered(numbering, record_of("line-2"));
  EXPECT_EQ(numbering.claimed(),
            (std::vector<std::string>{number, "carrier-a|line-1",
                                      core::origin_number("carrier-a", "line-2"),
                                      "carrier-a|line-2"}));
}

TEST(origin_numbering, a_record_the_compact_form_does_not_take_stays_as_it_is) {
  store::origin_numbering numbering;
  auto late = record_of("line-1", std::uint64_t{1} << 53);
  EXPECT_EQ(numbered(numbering, late), late);
}

TEST(origin_numbering, origins_past_the_bound_stay_written_out) {
  store::origin_numbering numbering;
  for (std::size_t i = 0; i < store::origin_numbering::origins_numbered; ++i)
    EXPECT_FALSE(core::record_origin_number(
                     numbered(numbering, record_of("line-" + std::to_string(i))))
                     .empty());
  auto past = record_of("one-more");
  EXPECT_EQ(numbered(numbering, past), past);
  EXPECT_EQ(numbering.claimed().size(), 2 * store::origin_numbering::origins_numbered);
}

} // namespace
