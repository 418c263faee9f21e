#include "store/sealed_records.hpp"

#include "core/card_compression.hpp"
#include "core/record.hpp"
#include "store/netstrings.hpp"

#include <gtest/gtest.h>

using namespace simsync;

namespace {

const std::string account = std::string(64, 'a');
const std::string card = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Grace Hopper\r\nEND:VCARD\r\n";

core::keyring ring(core::keyring::key_id writer = 1) {
  return core::keyring({{1, std::string(32, '\x11')}, {2, std::string(32, '\x22')}},
                       writer, std::string(32, '\x33'));
}

/// `record` with its head in `form`: records come from peers in the text
/// form, and the store keeps them compact.
std::string in_form(const std::string& record, core::record_form form) {
  std::string out;
  EXPECT_TRUE(core::append_record_head(out, record, form));
  return out + record.substr(core::record_body_at(record));
}

std::string kept(const std::string& record) {
  return in_form(record, core::record_form::compact);
}

/// A live version as a peer sends it.
std::string live_record() {
  core::stamped_card rec;
  rec.st = core::stamp{1'700'000'000'000'000, "carrier-a", "line-1"};
  rec.hash = core::content_hash::of(card);
  rec.card = card;
  return in_form(core::encode_record(rec), core::record_form::text);
}

std::string tombstone() {
  core::stamped_card rec;
  rec.st = core::stamp{1'700'000'000'000'001, "carrier-a", "line-1"};
  rec.deleted = true;
  rec.removes = core::stamp{1'700'000'000'000'000, "carrier-a", "line-1"};
  return in_form(core::encode_record(rec), core::record_form::text);
}

} // namespace

TEST(sealed_records, a_sealed_record_keeps_its_head_compact_and_hides_its_card) {
  auto record = live_record();
  auto sealed = store::seal_record(ring(), record, account);
  ASSERT_TRUE(sealed);
  auto body_at = core::record_body_at(kept(record));
  EXPECT_EQ(sealed->substr(0, body_at), kept(record).substr(0, body_at))
      << "the scripts compare stamps and hashes in the clear head";
  EXPECT_EQ(sealed->find("Hopper"), std::string::npos);
  EXPECT_EQ(store::open_record(ring(), *sealed, account), kept(record));
  auto unsealed = store::unseal_record(ring(), *sealed, account);
  ASSERT_TRUE(unsealed);
  auto text_body_at = core::record_body_at(record);
  EXPECT_EQ(unsealed->substr(0, text_body_at), record.substr(0, text_body_at))
      << "what leaves for a peer is the text form";
}

TEST(sealed_records, a_tombstone_holds_no_card_and_keeps_its_body) {
  EXPECT_EQ(store::seal_record(ring(), tombstone(), account), kept(tombstone()));
  EXPECT_EQ(store::open_record(ring(), kept(tombstone()), account), kept(tombstone()));
  EXPECT_EQ(store::unseal_record(ring(), kept(tombstone()), account), tombstone());
}

TEST(sealed_records, a_card_opens_only_in_its_account_and_with_a_key_of_the_ring) {
  auto sealed = *store::seal_record(ring(2), live_record(), account);
  EXPECT_FALSE(store::open_record(ring(), sealed, std::string(64, 'b')));
  EXPECT_NE(
      store::why_unopened(ring(), sealed, std::string(64, 'b')).find("altered, or moved"),
      std::string::npos);
  core::keyring only_one({{1, std::string(32, '\x11')}}, 1, std::string(32, '\x33'));
  EXPECT_FALSE(store::open_record(only_one, sealed, account));
  EXPECT_NE(store::why_unopened(only_one, sealed, account).find("key 2"),
            std::string::npos);
  EXPECT_NE(store::why_unopened(ring(), live_record(), account).find("not sealed"),
            std::string::npos);
}

TEST(sealed_records, a_batch_is_sealed_unsealed_and_expanded_record_by_record) {
  std::string batch;
  store::append_netstring(batch, "u1");
  store::append_netstring(batch, live_record());
  store::append_netstring(batch, "u2");
  store::append_netstring(batch, tombstone());
  auto items = store::sealed_items(ring(), batch, account);
  ASSERT_TRUE(items);
  ASSERT_EQ(items->size(), 4u);
  EXPECT_EQ((*items)[0], "u1");
  EXPECT_EQ((*items)[1].find("Hopper"), std::string::npos);
  EXPECT_EQ((*items)[3], kept(tombstone())) << "a tombstone holds no card to seal";
  EXPECT_EQ(core::form_of((*items)[1]), core::record_form::compact);
  std::string sealed;
  for (const auto& item : *items)
    store::append_netstring(sealed, item);
  // Unsealed (what leaves for a peer, in the text form), its cards are
  // still compressed.
  auto unsealed = store::unseal_batch(ring(), sealed, account);
  ASSERT_TRUE(unsealed);
  EXPECT_EQ(unsealed->find("Hopper"), std::string::npos) << "still compressed";
  EXPECT_EQ(store::expand_batch(*unsealed), batch);
  EXPECT_FALSE(store::unseal_batch(ring(), sealed, std::string(64, 'b')))
      << "bound to its account";
  // A card that does not expand fails the batch.
  auto record = live_record();
  std::string damaged;
  store::append_netstring(damaged, "u1");
  store::append_netstring(damaged, record.substr(0, core::record_body_at(record)) +
                                       core::compressed_card_mark + "\xff");
  EXPECT_FALSE(store::expand_batch(damaged));
  EXPECT_EQ(store::sealed_items(ring(), "", account), std::vector<std::string>{});
  EXPECT_FALSE(store::sealed_items(ring(), "2:u1", account))
      << "a uid without its record";
  EXPECT_FALSE(store::sealed_items(ring(), "2:u15:hello", account)) << "not a record";
}

TEST(sealed_records, a_card_is_compressed_before_it_is_sealed) {
  auto sealed = store::seal_card(ring(), card, account);
  auto inside = ring().open(sealed, account);
  ASSERT_TRUE(inside);
  EXPECT_EQ(inside->front(), core::compressed_card_mark);
  EXPECT_EQ(core::expand_card(*inside), card);
  EXPECT_EQ(store::open_sealed_card(ring(), sealed, account), card);
}

TEST(sealed_records, a_compressed_card_from_a_peer_is_sealed_as_it_came) {
  // A peer sends cards as it stored them, compressed; they are sealed
  // without compressing them again, and unseal to the same bytes.
  auto plain = live_record();
  auto body_at = core::record_body_at(plain);
  auto compressed = plain.substr(0, body_at) + core::compress_card(card);
  auto sealed = store::seal_record(ring(), compressed, account);
  ASSERT_TRUE(sealed);
  EXPECT_EQ(ring().open(sealed->substr(core::record_body_at(*sealed)), account),
            compressed.substr(body_at));
  EXPECT_EQ(store::unseal_record(ring(), *sealed, account), compressed);
  EXPECT_EQ(store::open_record(ring(), *sealed, account), kept(plain));
  // A card as it came is compressed: both forms are stored alike.
  auto from_plain = store::seal_record(ring(), plain, account);
  ASSERT_TRUE(from_plain);
  EXPECT_EQ(store::unseal_record(ring(), *from_plain, account), compressed);
}

TEST(sealed_records, a_card_sealed_before_compression_still_opens) {
  // What stores written by earlier builds hold: the card sealed as it came.
  auto record = live_record();
  auto body_at = core::record_body_at(record);
  auto stored = record.substr(0, body_at) + ring().seal(card, account);
  EXPECT_EQ(store::open_record(ring(), stored, account), record);
  // A key rotation's re-seal compresses it.
  auto resealed =
      store::seal_record(ring(), *store::open_record(ring(), stored, account), account);
  ASSERT_TRUE(resealed);
  EXPECT_LT(resealed->size(), stored.size());
  EXPECT_EQ(store::open_record(ring(), *resealed, account), kept(record));
}

TEST(sealed_records, a_card_that_opens_but_does_not_expand_is_told_apart) {
  auto record = live_record();
  auto body_at = core::record_body_at(record);
  auto damaged =
      record.substr(0, body_at) +
      ring().seal(std::string(1, core::compressed_card_mark) + "\xff", account);
  EXPECT_FALSE(store::open_record(ring(), damaged, account));
  EXPECT_NE(store::why_unopened(ring(), damaged, account).find("compressed form"),
            std::string::npos);
}
