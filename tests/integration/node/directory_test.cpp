// Sibling resolution between real carrierd processes (the user directory):
// a new account asks the peer carriers whether they hold one for the person;
// only those that do record it and answer.
#include "tests/integration/node/admin_counts.hpp"
#include "tests/integration/node/node_fixture.hpp"

#include <cstdio>
#include <thread>

using namespace simsync;
using namespace simsync::testing;

namespace {

const std::string line_a = "+8613800138000";
const std::string line_b = "+8618600186000";
const std::string line_c = "+8615000150000";

/// The idcode of test person `i`.
std::string person_number(int i) {
  char tail[9];
  std::snprintf(tail, sizeof tail, "%08x", static_cast<unsigned>(i));
  return std::string(56, 'd') + tail;
}

/// Test person `i`'s line at a carrier (`prefix`: the carrier's numbers).
std::string line_of(const char* prefix, int i) {
  return prefix + std::to_string(1000 + i);
}

/// The keys of the carrier's Redis whose name holds `text`.
std::vector<std::string> keys_naming(deployment& d, const std::string& carrier,
                                     const std::string& text) {
  auto redis = d.redis(carrier).connect();
  auto all = redis.call({"KEYS", "*" + text + "*"});
  std::vector<std::string> out;
  for (std::size_t i = 0; all && i < all->view().size(); ++i)
    out.emplace_back(all->view()[i].str());
  return out;
}

/// The user directory's outcome counts.
std::map<std::string, int> directory_outcomes(deployment& d, const std::string& carrier) {
  return actor_counts(d, carrier, "user_directory", "directory");
}

struct directory : ::testing::Test {
  deployment d{{"carrier-a", "carrier-b", "carrier-c"}};
  carrier_client client{d};
};

} // namespace

TEST_F(directory, first_registrations_at_two_carriers_at_once_end_as_siblings) {
  // Each pair registers at the same moment, so the asks cross in every order
  // the scheduling gives: one carrier's ask may arrive before or after the
  // other created its account.
  constexpr int people = 12;
  // One client per thread (a client is one actor); both live to the end
  // (CAF 0.17: tearing down one TLS client system can break another's).
  carrier_client second(d);
  for (int i = 0; i < people; ++i) {
    auto who = person_number(i);
    std::thread at_c([&] {
      second.register_line("carrier-c", who, line_of("+861500015", i),
                           peers_of("carrier-c"));
    });
    client.register_line("carrier-a", who, line_of("+861380013", i),
                         peers_of("carrier-a"));
    at_c.join();
  }
  for (int i = 0; i < people; ++i) {
    auto who = person_number(i);
    client.upload("carrier-a", who, line_of("+861380013", i),
                  {make_card("a" + std::to_string(i), "From A")});
    client.upload("carrier-c", who, line_of("+861500015", i),
                  {make_card("c" + std::to_string(i), "From C")},
                  store::upload_mode::delta);
  }
  for (int i = 0; i < people; ++i) {
    auto who = person_number(i);
    ASSERT_TRUE(eventually([&] {
      auto a = client.shared("carrier-a", who, line_of("+861380013", i));
      return a.size() == 2 &&
             a == client.shared("carrier-c", who, line_of("+861500015", i));
    })) << "person "
        << i << " did not converge: carrier-a holds "
        << client.shared("carrier-a", who, line_of("+861380013", i)).size() << " cards";
  }
  // carrier-b holds no account for them, and nothing names them there.
  for (int i = 0; i < people; ++i)
    EXPECT_EQ(keys_naming(d, "carrier-b", person_number(i)), std::vector<std::string>{});
}

TEST_F(directory, a_line_retired_and_registered_again_gets_the_book_of_a_later_sibling) {
  client.register_line("carrier-a", person, line_a, peers_of("carrier-a"));
  client.upload("carrier-a", person, line_a, {make_card("old", "Before")});
  // The person's only line at carrier-a goes, and with it the account.
  ASSERT_TRUE(client
                  .ask<bool>("carrier-a", person, atom::remove_line_v, person, line_a,
                             client.proof)
                  .value());
  // Then they register at carrier-c, and keep a book there.
  client.register_line("carrier-c", person, line_c, peers_of("carrier-c"));
  client.upload("carrier-c", person, line_c,
                {make_card("c1", "From C 1"), make_card("c2", "From C 2")});
  // Back at carrier-a: its new account asks, carrier-c answers with its book.
  client.register_line("carrier-a", person, line_a, peers_of("carrier-a"));
  ASSERT_TRUE(eventually([&] {
    return client.counts("carrier-a", person, line_a).added == 2;
  })) << "carrier-a's line has "
      << client.counts("carrier-a", person, line_a).added << " pending";
  // And they are siblings both ways from now on.
  client.upload("carrier-a", person, line_a, {make_card("a1", "From A")},
                store::upload_mode::delta);
  ASSERT_TRUE(eventually(
      [&] { return client.shared("carrier-c", person, line_c).count("a1") == 1; }));
}

TEST_F(directory, a_carrier_without_a_line_of_the_person_keeps_no_key_naming_them) {
  client.register_line("carrier-a", person, line_a, peers_of("carrier-a"));
  client.register_line("carrier-b", person, line_b, peers_of("carrier-b"));
  client.upload("carrier-a", person, line_a, {make_card("u1", "Li")});
  ASSERT_TRUE(
      eventually([&] { return client.counts("carrier-b", person, line_b).added == 1; }));
  // carrier-c was asked twice (more if a link resent a window: delivery is
  // at least once) and holds no account: it answered none.
  ASSERT_TRUE(eventually([&] {
    return directory_outcomes(d, "carrier-c")["asked"] >= 2;
  })) << "carrier-c's directory saw "
      << directory_outcomes(d, "carrier-c")["asked"] << " asks";
  EXPECT_EQ(directory_outcomes(d, "carrier-c")["answered"], 0);
  EXPECT_EQ(keys_naming(d, "carrier-c", person), std::vector<std::string>{});
  // carrier-b retires its line: only its sibling, carrier-a, is told.
  ASSERT_TRUE(client
                  .ask<bool>("carrier-b", person, atom::remove_line_v, person, line_b,
                             client.proof)
                  .value());
  ASSERT_TRUE(eventually(
      [&] { return directory_outcomes(d, "carrier-a")["siblings_removed"] == 1; }));
  EXPECT_EQ(directory_outcomes(d, "carrier-c")["siblings_removed"], 0);
  EXPECT_EQ(keys_naming(d, "carrier-b", person), std::vector<std::string>{});
  EXPECT_EQ(keys_naming(d, "carrier-c", person), std::vector<std::string>{});
}
