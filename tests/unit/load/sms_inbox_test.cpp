#include "load/sms_inbox.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace simsync::load;
namespace fs = std::filesystem;

namespace {

struct sms_files : ::testing::Test {
  fs::path dir = fs::temp_directory_path() /
                 ("simsync-sms-inbox-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  void append(const std::string& file, const std::string& text) {
    std::ofstream(dir / file, std::ios::binary | std::ios::app) << text;
  }
  static std::string message(const std::string& to, const std::string& code) {
    return R"({"at":"2026-01-01T00:00:00.000Z","to":")" + to +
           R"(","text":"simsync code )" + code +
           R"( (valid 5 minutes). Never share it."})" + "\n";
  }
};

} // namespace

TEST(sms_code, is_the_first_word_of_six_digits) {
  EXPECT_EQ(code_in("simsync code 123456 (valid 5 minutes). Never share it."), "123456");
  EXPECT_EQ(code_in("654321"), "654321");
  EXPECT_EQ(code_in("ref 1234567, code 012345."), "012345");
  EXPECT_EQ(code_in("a123456 x_123456 123456b"), "");
  EXPECT_EQ(code_in("no code"), "");
}

TEST_F(sms_files, reads_only_what_was_appended_since_it_opened) {
  append("a1.ndjson", message("+8613800000001", "111111"));
  sms_inbox inbox({(dir / "a1.ndjson").string(), (dir / "a2.ndjson").string()});
  inbox.refresh();
  EXPECT_EQ(inbox.take("+8613800000001"), ""); // old news

  append("a1.ndjson", message("+8613800000001", "222222"));
  append("a2.ndjson", message("+8613800000002", "333333"));
  // A line still being written waits for its end.
  auto half = message("+8613800000003", "444444");
  append("a1.ndjson", half.substr(0, 20));
  inbox.refresh();
  EXPECT_EQ(inbox.take("+8613800000001"), "222222");
  EXPECT_EQ(inbox.take("+8613800000001"), ""); // taken
  EXPECT_EQ(inbox.take("+8613800000002"), "333333");
  EXPECT_EQ(inbox.take("+8613800000003"), "");
  append("a1.ndjson", half.substr(20));
  append("a1.ndjson", "not json\n");
  inbox.refresh();
  EXPECT_EQ(inbox.take("+8613800000003"), "444444");

  // A newer code replaces one not taken yet.
  append("a2.ndjson", message("+8613800000002", "555555"));
  append("a2.ndjson", message("+8613800000002", "666666"));
  inbox.refresh();
  EXPECT_EQ(inbox.take("+8613800000002"), "666666");
  EXPECT_EQ(inbox.messages(), 5u);
}
