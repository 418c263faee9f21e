#include "core/keyring.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace simsync::core;

namespace {

const std::string key_one(32, '\x11');
const std::string key_two(32, '\x22');
const std::string lookup(32, '\x33');
const std::string card = "BEGIN:VCARD\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n";
const std::string account = std::string(64, 'a');

keyring ring(std::map<keyring::key_id, std::string> keys, keyring::key_id writer) {
  return keyring(std::move(keys), writer, lookup);
}

} // namespace

TEST(keyring, a_sealed_value_names_its_key_and_hides_the_plaintext) {
  auto sealed = ring({{1, key_one}, {2, key_two}}, 2).seal(card, account);
  EXPECT_EQ(keyring::key_of(sealed), keyring::key_id{2});
  EXPECT_EQ(sealed.size(), card.size() + keyring::overhead);
  EXPECT_EQ(sealed.find("Lovelace"), std::string::npos);
}

TEST(keyring, any_key_of_the_ring_opens_what_it_sealed) {
  auto old_value = ring({{1, key_one}}, 1).seal(card, account);
  auto rotated = ring({{1, key_one}, {2, key_two}}, 2);
  EXPECT_EQ(rotated.open(old_value, account), card);
  EXPECT_EQ(rotated.open(rotated.seal(card, account), account), card);
  // Once key 1 is dropped, its values no longer open.
  EXPECT_FALSE(ring({{2, key_two}}, 2).open(old_value, account).has_value());
}

TEST(keyring, a_value_moved_to_another_account_does_not_open) {
  auto r = ring({{1, key_one}}, 1);
  EXPECT_FALSE(r.open(r.seal(card, account), std::string(64, 'b')).has_value());
}

TEST(keyring, a_relabelled_or_altered_value_does_not_open) {
  // Both keys equal: only the authenticated head tells the value was relabelled.
  auto r = ring({{1, key_one}, {2, key_one}}, 1);
  auto sealed = r.seal(card, account);
  auto relabelled = sealed;
  relabelled[2] = '\x02';
  EXPECT_EQ(keyring::key_of(relabelled), keyring::key_id{2});
  EXPECT_FALSE(r.open(relabelled, account).has_value());
  auto altered = sealed;
  altered[10] ^= 1;
  EXPECT_FALSE(r.open(altered, account).has_value());
  EXPECT_FALSE(r.open(card, account).has_value()) << "clear text is not a sealed value";
  EXPECT_FALSE(r.open(sealed.substr(0, keyring::overhead - 1), account).has_value());
}

TEST(keyring, lookup_hashes_are_stable_keyed_and_domain_separated) {
  auto r = ring({{1, key_one}}, 1);
  auto h = r.lookup_hash("msisdn", "+4915112345678");
  EXPECT_EQ(h.size(), 22u);
  EXPECT_EQ(h, ring({{2, key_two}}, 2).lookup_hash("msisdn", "+4915112345678"))
      << "seal keys rotate; the lookup key does not";
  EXPECT_NE(h, r.lookup_hash("iccid", "+4915112345678"));
  EXPECT_NE(h, r.lookup_hash("msisdn", "+4915112345679"));
  EXPECT_NE(h, keyring({{1, key_one}}, 1, std::string(32, '\x44'))
                   .lookup_hash("msisdn", "+4915112345678"));
  EXPECT_EQ(h.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789-_"),
            std::string::npos);
}

TEST(keyring, a_bad_ring_is_refused) {
  EXPECT_THROW(ring({}, 1), std::invalid_argument);
  EXPECT_THROW(ring({{1, key_one}}, 2), std::invalid_argument);
  EXPECT_THROW(ring({{0, key_one}}, 0), std::invalid_argument);
  EXPECT_THROW(ring({{1, std::string(31, 'k')}}, 1), std::invalid_argument);
  EXPECT_THROW(keyring({{1, key_one}}, 1, std::string(31, 'k')), std::invalid_argument);
}

TEST(keyring, a_shared_ring_is_replaced_whole) {
  shared_keyring shared(ring({{1, key_one}}, 1));
  auto before = shared.current();
  shared.replace(ring({{1, key_one}, {2, key_two}}, 2));
  EXPECT_EQ(before->writer(), 1);
  EXPECT_EQ(shared.current()->writer(), 2);
}

TEST(keyring, a_replaced_ring_counts_while_a_write_holds_it_and_its_writer_is_older) {
  shared_keyring shared(ring({{1, key_one}}, 1));
  auto sealed_under_1 = shared.current();
  shared.replace(ring({{1, key_one}, {2, key_two}}, 1)); // key 2 joins; 1 still writes
  EXPECT_EQ(shared.older_writers_in_use(), 0u);
  auto also_under_1 = shared.current();
  shared.replace(ring({{1, key_one}, {2, key_two}}, 2));
  EXPECT_EQ(shared.older_writers_in_use(), 2u);
  sealed_under_1.reset();
  EXPECT_EQ(shared.older_writers_in_use(), 1u);
  also_under_1.reset();
  EXPECT_EQ(shared.older_writers_in_use(), 0u);
  auto under_2 = shared.current();
  shared.replace(ring({{2, key_two}}, 2)); // key 1 leaves; the writer is the same
  EXPECT_EQ(shared.older_writers_in_use(), 0u);
}
