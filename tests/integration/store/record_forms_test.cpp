// The forms the store keeps: records in the compact form and hashes as their
// 16 bytes (in a line's base, a fetch's entries, an upload's arguments). A
// store written before them holds text records and hex hashes; it is read
// as it is, with no rewrite, and what the scripts write over it is the new
// form.
#include "core/digest.hpp"
#include "core/record.hpp"
#include "store/keys.hpp"
#include "tests/integration/store/store_fixture.hpp"

using namespace simsync;
using namespace simsync::testing;

namespace {

/// line1 and line2 of one person, whose account can be rewritten as a build
/// before the compact form kept it.
struct kept_before : two_lines {
  /// Rewrites the account as a build before the compact form kept it: the
  /// shared store's records in the text form, the lines' bases in hex.
  void as_kept_before() {
    const auto names = origins_of(a.client, person);
    for (const auto& [uid, record] : shared_records(a.client, person))
      ASSERT_TRUE(a.admin.call(
          {"HSET", store::keys::shared(person), uid, text_form(record, names)}));
    for (const auto& line : {line1, line2})
      for (const auto& [uid, hash] :
           hash_fields(a.client, store::keys::base(person, line)))
        ASSERT_TRUE(a.admin.call(
            {"HSET", store::keys::base(person, line), uid, core::hex(hash)}));
  }

  /// A fetch's entries of `line` as a build before hash bytes wrote them:
  /// "seq:hash:base", hex hashes and '-' for no base.
  void fetched_as_written_before(const std::string& line) {
    const auto key = store::keys::fetched(person, line);
    for (const auto& [uid, entry] : hash_fields(a.client, key)) {
      auto colon = entry.find(':');
      ASSERT_NE(colon, std::string::npos);
      auto rest = std::string_view(entry).substr(colon + 1);
      auto part = [&rest]() {
        if (rest.front() != 'H') {
          auto mark = std::string(rest.substr(0, 1));
          rest.remove_prefix(1);
          return mark;
        }
        auto hash = core::hex(rest.substr(1, 16));
        rest.remove_prefix(17);
        return hash;
      };
      auto what = part();
      auto base = part();
      ASSERT_TRUE(rest.empty()) << entry;
      ASSERT_TRUE(a.admin.call(
          {"HSET", key, uid, entry.substr(0, colon + 1) + what + ":" + base}));
    }
  }

  void fetch_and_apply(const std::string& line) {
    auto f = a.store.fetch_pending(person, line, proof_of(line));
    ASSERT_TRUE(f);
    ASSERT_TRUE(a.store.ack_pending(person, line, proof_of(line), f->cursor,
                                    store::decision::apply));
  }

  std::map<std::string, std::string> base_of(const std::string& line) {
    return hash_fields(a.client, store::keys::base(person, line));
  }
};

TEST_F(kept_before, an_upload_keeps_compact_records_and_hash_bytes) {
  const std::vector<core::book_entry> book{make_card("u1", "Li"),
                                           make_card("u2", "Wang")};
  upload(a.store, person, line1, book);
  auto records = shared_records(a.client, person);
  ASSERT_EQ(records.size(), 2u);
  // The line's origin is its number, which the account's table names.
  const auto number = core::origin_number("carrier-a", line1);
  const auto names = origins_of(a.client, person);
  EXPECT_EQ(names, (core::origin_names{{number, "carrier-a|" + line1}}));
  for (const auto& card : book) {
    const auto& record = records[card.uid];
    EXPECT_EQ(core::form_of(record), core::record_form::compact);
    EXPECT_EQ(core::record_origin_number(record), number);
    // 27 bytes less in the head, and the origin's 25 ("carrier-a|" and
    // line1, '|') in 5.
    EXPECT_EQ(text_form(record, names).size(), record.size() + 27 + 20);
    auto opened = core::decode_record(
        *store::open_record(*a.keys->current(), record, person), &names);
    ASSERT_TRUE(opened);
    EXPECT_EQ(opened->st.line, line1);
    EXPECT_EQ(opened->hash, card.hash);
    EXPECT_EQ(opened->card, card.card);
    EXPECT_EQ(base_of(line1)[card.uid], card.hash.bytes());
  }
  // A removal the scripts write is compact too.
  upload(a.store, person, line1, {book[0]});
  auto removal = shared_records(a.client, person)["u2"];
  EXPECT_EQ(core::form_of(removal), core::record_form::compact);
  EXPECT_TRUE(core::decode_record(removal)->deleted);
}

TEST_F(kept_before, a_store_kept_before_reads_as_it_is) {
  const std::vector<core::book_entry> book{make_card("u1", "Li"), make_card("u2", "Wang"),
                                           make_card("u3", "Zhao")};
  upload(a.store, person, line1, book);
  fetch_and_apply(line2);
  as_kept_before();
  ASSERT_EQ(core::form_of(shared_records(a.client, person)["u1"]),
            core::record_form::text);
  ASSERT_EQ(base_of(line2)["u1"], book[0].hash.hex());

  // line2's snapshot: u1 as it holds it (unchanged), u2 changed, u3 left
  // out, whose removal its hex base entry allows (no conflict).
  const auto wang_wu = make_card("u2", "Wang Wu");
  auto edited = upload(a.store, person, line2, {book[0], wang_wu});
  EXPECT_EQ(edited.unchanged, 1u);
  EXPECT_EQ(edited.changed, 1u);
  EXPECT_EQ(edited.removed, 1u);
  EXPECT_EQ(core::form_of(shared_records(a.client, person)["u2"]),
            core::record_form::compact);
  EXPECT_EQ(base_of(line2)["u1"], book[0].hash.bytes()) << "its hex entry made bytes";

  // An edit of u1 and its undoing: line1, which holds u1 as it is again
  // (in hex), is not offered it.
  upload(a.store, person, line2, {make_card("u1", "Li X")}, store::upload_mode::delta);
  upload(a.store, person, line2, {book[0]}, store::upload_mode::delta);
  auto f = a.store.fetch_pending(person, line1, proof_of(line1));
  ASSERT_TRUE(f);
  EXPECT_EQ(kinds(*f),
            (std::map<std::string, std::string>{{"u2", "changed"}, {"u3", "removed"}}));
  ASSERT_TRUE(a.store.ack_pending(person, line1, proof_of(line1), f->cursor,
                                  store::decision::apply));
  auto base = base_of(line1);
  EXPECT_EQ(base["u1"], book[0].hash.hex()) << "untouched";
  EXPECT_EQ(base["u2"], wang_wu.hash.bytes());
  EXPECT_EQ(base.count("u3"), 0u);

  // What line1 holds, uploaded again: no change, and nothing for line2.
  auto again = upload(a.store, person, line1, {book[0], wang_wu});
  EXPECT_EQ(again.unchanged, 2u);
  EXPECT_EQ(again.added + again.changed + again.removed, 0u);
  EXPECT_TRUE(a.store.fetch_pending(person, line2, proof_of(line2))->changes.empty());
}

TEST_F(kept_before, a_fetch_written_before_hash_bytes_is_acked_as_it_was) {
  // An addition (no base), and a change of a card the line holds in hex.
  upload(a.store, person, line1, {make_card("u1", "Li")});
  fetch_and_apply(line2);
  as_kept_before();
  upload(a.store, person, line1, {make_card("u1", "Li Si"), make_card("u2", "Wang")});
  auto f = a.store.fetch_pending(person, line2, proof_of(line2));
  ASSERT_TRUE(f);
  ASSERT_EQ(kinds(*f),
            (std::map<std::string, std::string>{{"u1", "changed"}, {"u2", "added"}}));
  fetched_as_written_before(line2);
  ASSERT_TRUE(a.store.ack_pending(person, line2, proof_of(line2), f->cursor,
                                  store::decision::apply));
  auto base = base_of(line2);
  EXPECT_EQ(base["u1"], make_card("u1", "Li Si").hash.bytes());
  EXPECT_EQ(base["u2"], make_card("u2", "Wang").hash.bytes());
  EXPECT_TRUE(a.store.fetch_pending(person, line2, proof_of(line2))->changes.empty());
}

} // namespace

// An account's table of origins names a few: an origin past them (a peer
// that sends origins without end) is kept written out, and the table does
// not grow.
TEST_F(kept_before, an_origin_past_a_full_table_is_written_out) {
  for (int i = 0; i < 64; ++i)
    ASSERT_TRUE(
        a.admin.call({"HSET", store::keys::origins(person), "n" + std::to_string(100 + i),
                      "carrier-x|" + std::to_string(i)}));
  upload(a.store, person, line1, {make_card("u1", "Li")});
  EXPECT_EQ(core::record_origin(shared_records(a.client, person)["u1"]),
            "carrier-a|" + line1);
  EXPECT_EQ(origins_of(a.client, person).size(), 64u);
  auto cards = a.store.read_cards(person, line1, proof_of(line1), store::scope::shared);
  ASSERT_TRUE(cards);
  ASSERT_EQ(cards->size(), 1u);
  EXPECT_EQ(cards->front().record.st.line, line1);
}
