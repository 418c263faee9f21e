#include "core/digest.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <vector>

using namespace simsync::core;

TEST(digest, hex_is_lower_case_two_digits_per_byte) {
  EXPECT_EQ(hex(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
  EXPECT_EQ(hex(""), "");
}

TEST(digest, hex_reads_back_in_either_case) {
  std::string bytes("\x00\x7f\x80\xfe\xff", 5);
  EXPECT_EQ(bytes_of_hex(hex(bytes)), bytes);
  EXPECT_EQ(bytes_of_hex("00A0Ff"), std::string("\x00\xa0\xff", 3));
  EXPECT_EQ(bytes_of_hex(""), std::string());
}

TEST(digest, hex_refuses_an_odd_length_and_other_characters) {
  EXPECT_EQ(bytes_of_hex("abc"), std::nullopt);
  EXPECT_EQ(bytes_of_hex("0g"), std::nullopt);
  EXPECT_EQ(bytes_of_hex("0 "), std::nullopt);
  EXPECT_EQ(bytes_of_hex("x0"), std::nullopt);
}

TEST(digest, sha256_matches_the_standard_vector) {
  // FIPS 180-2, appendix B.1.
  EXPECT_EQ(hex(sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(digest, hmac_sha256_matches_the_standard_vector) {
  // RFC 4231, test case 2.
  EXPECT_EQ(hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_NE(hmac_sha256("Jefe", "what do ya want for nothing!"),
            hmac_sha256("Jefe", "what do ya want for nothing?"));
}

TEST(digest, a_key_set_up_once_gives_the_same_macs_again_and_again) {
  hmac_sha256_key jefe("Jefe");
  const std::string expected =
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
  // The first MAC on this thread copies the key's setup; the next ones reuse
  // the thread's context, which must start from the key each time.
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(hex(jefe.mac("what do ya want for nothing?")), expected) << i;
  EXPECT_EQ(jefe.mac("another message"), hmac_sha256("Jefe", "another message"));
  EXPECT_EQ(hex(jefe.mac("what do ya want for nothing?")), expected);
}

TEST(digest, keys_used_in_turn_on_one_thread_each_give_their_own_macs) {
  hmac_sha256_key one("key one"), two("key two");
  hmac_sha256_key copy_of_one = one; // shares one's setup
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(one.mac("m"), hmac_sha256("key one", "m")) << i;
    EXPECT_EQ(two.mac("m"), hmac_sha256("key two", "m")) << i;
    EXPECT_EQ(copy_of_one.mac("m"), hmac_sha256("key one", "m")) << i;
  }
}

TEST(digest, a_key_made_after_another_is_gone_never_takes_its_context) {
  // The thread's ready context belongs to the first key; the second may be
  // set up at the same address, and must still be its own.
  std::optional<hmac_sha256_key> key;
  key.emplace("first key");
  EXPECT_EQ(key->mac("m"), hmac_sha256("first key", "m"));
  key.emplace("second key");
  EXPECT_EQ(key->mac("m"), hmac_sha256("second key", "m"));
}

TEST(digest, threads_share_a_key_and_each_gets_the_right_macs) {
  hmac_sha256_key shared("shared key");
  const std::string expected = hmac_sha256("shared key", "message");
  std::vector<std::thread> threads;
  std::vector<int> right(4, 0);
  for (std::size_t t = 0; t < right.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i)
        right[t] += shared.mac("message") == expected ? 1 : 0;
    });
  for (auto& thread : threads)
    thread.join();
  for (int r : right)
    EXPECT_EQ(r, 200);
}
