#include "net/http_status.hpp"

#include <gtest/gtest.h>

#include <string>

namespace simsync::net {
namespace {

TEST(reason_phrase, every_status_the_api_answers_has_its_own) {
  // Registration answers 202, a pending page 304, an expired code 410: they
  // were once sent as "Client Error".
  EXPECT_EQ(std::string{reason_phrase(202)}, "Accepted");
  EXPECT_EQ(std::string{reason_phrase(304)}, "Not Modified");
  EXPECT_EQ(std::string{reason_phrase(410)}, "Gone");
  EXPECT_EQ(std::string{reason_phrase(412)}, "Precondition Failed");
  EXPECT_EQ(std::string{reason_phrase(429)}, "Too Many Requests");
}

TEST(reason_phrase, an_unlisted_status_gets_its_class) {
  EXPECT_EQ(std::string{reason_phrase(299)}, "Success");
  EXPECT_EQ(std::string{reason_phrase(399)}, "Redirection");
  EXPECT_EQ(std::string{reason_phrase(418)}, "Client Error");
  EXPECT_EQ(std::string{reason_phrase(599)}, "Server Error");
}

} // namespace
} // namespace simsync::net
