#pragma once

#include "core/book.hpp"
#include "core/record.hpp"
#include "core/record_layout.hpp"
#include "core/stamp.hpp"
#include "store/account_store.hpp"
#include "store/history_entry.hpp"
#include "store/keys.hpp"
#include "store/outbox.hpp"
#include "store/sealed_records.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/test_keyring.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace simsync::testing {

/// A card as a phone would send it, with its hash computed the simple way
/// (store tests do not depend on the vCard codec).
inline core::book_entry make_card(const std::string& uid, const std::string& name) {
  core::book_entry e;
  e.uid = uid;
  e.card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + name +
           "\r\nTEL:+8613800000000\r\nEND:VCARD\r\n";
  e.hash = core::content_hash::of(e.card);
  return e;
}

/// Cards u<from> .. u<to - 1>, named <name><i>.
inline std::vector<core::book_entry> numbered_cards(int from, int to,
                                                    const std::string& name = "P") {
  std::vector<core::book_entry> out;
  for (int i = from; i < to; ++i)
    out.push_back(make_card("u" + std::to_string(i), name + std::to_string(i)));
  return out;
}

/// One carrier's store: a real redis-server, a connection as carrierd's
/// least-privilege user (so every script is proven to run with it) and an
/// account_store on it, and the test's own inspection connection (admin).
struct carrier_store {
  explicit carrier_store(std::string carrier_id, redis_server::options opts = {})
      : server(opts), client(server.connect_as_carrierd()), admin(server.connect()),
        keys(simsync::testing::test_keyring()),
        store(client, std::move(carrier_id), keys) {}

  redis_server server;
  store::redis_client client;
  store::redis_client admin;
  std::shared_ptr<core::shared_keyring> keys; ///< what the store seals with
  store::account_store store;
};

inline const std::string person = std::string(64, 'a'); // an idcode
inline const std::string other_person = std::string(64, 'b');

/// Two lines of `person`'s at one carrier, as the store knows them.
inline const std::string line1 = "+8613800138000";
inline const std::string line2 = "+8613900139000";

/// The proof a line presents (its token's hash): what register_line stored.
inline std::string proof_of(const std::string& line) {
  return "token-hash-" + line;
}

inline void register_line(store::account_store& s, const std::string& idcode,
                          const std::string& line, std::vector<std::string> peers = {}) {
  store::register_request req{idcode,           line,           "iccid-hash",
                              proof_of(line),   "sealed",       core::unix_now_ms(),
                              std::move(peers), "sealed-msisdn"};
  auto r = s.register_line(req);
  ASSERT_TRUE(r) << describe(r.error());
}

/// One carrier with line1 and line2 of `person` registered.
struct two_lines : ::testing::Test {
  void SetUp() override {
    register_line(a.store, person, line1);
    register_line(a.store, person, line2);
  }
  carrier_store a{"carrier-a"};
};

/// A line's upload of `cards`, with the proof register_line stored.
inline store::upload_request
upload_request_of(const std::string& idcode, const std::string& line,
                  std::vector<core::book_entry> cards,
                  store::upload_mode mode = store::upload_mode::snapshot,
                  store::scope where = store::scope::shared,
                  std::uint64_t now_ms = 1'700'000'000'000) {
  store::upload_request req;
  req.idcode = idcode;
  req.line = line;
  req.token_hash = proof_of(line);
  req.scope = where;
  req.mode = mode;
  req.cards = std::move(cards);
  req.now_ms = now_ms;
  return req;
}

inline store::upload_result upload(store::account_store& s, const std::string& idcode,
                                   const std::string& line,
                                   std::vector<core::book_entry> cards,
                                   store::upload_mode mode = store::upload_mode::snapshot,
                                   store::scope where = store::scope::shared,
                                   std::uint64_t now_ms = 1'700'000'000'000) {
  auto r =
      s.upload(upload_request_of(idcode, line, std::move(cards), mode, where, now_ms));
  EXPECT_TRUE(r) << describe(r.error());
  return r ? *r : store::upload_result{};
}

/// A sibling carrier's directory entry (an ask by default; a hold or a
/// retirement) about its account for `idcode`, as an outbox entry that
/// account_store::apply_incoming takes.
inline store::outbox_entry
sibling_entry(const std::string& idcode,
              store::outbox_kind kind = store::outbox_kind::ask) {
  return store::outbox_entry{"0-1", idcode, kind, {}};
}

/// A sibling carrier's batch for `idcode` (netstrings of uid, record pairs).
inline store::outbox_entry batch_entry(const std::string& idcode, std::string batch) {
  return store::outbox_entry{"0-1", idcode, store::outbox_kind::batch, std::move(batch)};
}

/// uid -> kind name of what a fetch returned.
inline std::map<std::string, std::string> kinds(const store::pending_fetch& f) {
  static const char* names[] = {"added", "changed", "removed"};
  std::map<std::string, std::string> out;
  for (const auto& c : f.changes)
    out[c.uid] = names[static_cast<int>(c.kind)];
  return out;
}

/// A raw Redis hash: field -> value.
inline std::map<std::string, std::string> hash_fields(store::redis_client& r,
                                                      const std::string& key) {
  auto reply = r.call({"HGETALL", key});
  EXPECT_TRUE(reply);
  std::map<std::string, std::string> out;
  auto v = reply->view();
  for (std::size_t i = 0; i + 1 < v.size(); i += 2)
    out[std::string(v[i].str())] = std::string(v[i + 1].str());
  return out;
}

/// What an account's shared history notes, in the stream's order: one
/// {kind, origin "carrier|line", uid} per uid of each entry.
struct history_note {
  std::string kind, origin, uid;
};
inline std::vector<history_note> history_notes(store::redis_client& r,
                                               const std::string& idcode) {
  auto reply = r.call({"XRANGE", store::keys::history(idcode), "-", "+"});
  EXPECT_TRUE(reply);
  std::vector<history_note> out;
  if (!reply)
    return out;
  for (std::size_t i = 0; i < reply->view().size(); ++i) {
    auto entry = store::read_history_entry(reply->view()[i][1]);
    EXPECT_TRUE(entry);
    if (!entry)
      continue;
    auto origin = std::string(entry->carrier) + core::record_layout::separator +
                  std::string(entry->line);
    for (auto uid : entry->uids)
      out.push_back({std::string(entry->kind), origin, std::string(uid)});
  }
  return out;
}

/// An account's table of origins at a carrier: what names the numbers its
/// records write their origins as.
inline core::origin_names origins_of(store::redis_client& r, const std::string& idcode) {
  auto table = hash_fields(r, store::keys::origins(idcode));
  return core::origin_names(table.begin(), table.end());
}

/// `record` with its head in the text form, as peers send it (the store
/// keeps records compact), a numbered origin written out as `names` name
/// it: a test that writes a record's parts by their offsets writes them in
/// this form.
inline std::string text_form(const std::string& record,
                             const core::origin_names& names = {}) {
  std::string out;
  EXPECT_TRUE(core::append_record_head(out, record, core::record_form::text, &names));
  return out + record.substr(core::record_body_at(record));
}

/// The raw shared store: uid -> encoded record.
inline std::map<std::string, std::string> shared_records(store::redis_client& r,
                                                         const std::string& idcode) {
  return hash_fields(r, "shared:{" + idcode + "}");
}

/// The shared store of an account as carrierd reads it: uid -> record, its
/// card opened with the carrier's keys and its origin written out (raw
/// records differ between carriers, which seal with their own keys, and
/// may write an origin as its number at one and out at another).
inline std::map<std::string, std::string> opened_records(carrier_store& c,
                                                         const std::string& idcode) {
  std::map<std::string, std::string> out;
  const auto names = origins_of(c.client, idcode);
  for (const auto& [uid, stored] : shared_records(c.client, idcode)) {
    std::string written_out;
    auto opened = store::open_record(*c.keys->current(), stored, idcode);
    if (opened && core::append_record_written_out(written_out, *opened, &names))
      out[uid] = written_out;
    else
      out[uid] = "(does not open) " + stored;
  }
  return out;
}

/// Up to `count` entries waiting at `from` for `peer`, as its peer link
/// reads them: their cards unsealed, still compressed.
inline caf::expected<std::vector<store::outbox_entry>>
unsealed_outbox(carrier_store& from, const std::string& peer, std::size_t count) {
  auto entries = store::read_outbox(from.client, peer, "0-0", count);
  if (!entries)
    return entries;
  for (auto& e : *entries)
    if (auto err = store::unseal_entry(*from.keys->current(), e, peer))
      return err;
  return entries;
}

/// The raw pending mailbox of a line: uid -> what the store keeps for it.
inline std::map<std::string, std::string> pending_entries(store::redis_client& r,
                                                          const std::string& idcode,
                                                          const std::string& line) {
  return hash_fields(r, "pending:{" + idcode + "}:" + line);
}

/// How many entries of stream `key` have field `field` equal to `value`
/// (what a node's operator streams keep about an account).
inline std::size_t stream_entries_with(store::redis_client& redis, const std::string& key,
                                       std::string_view field, const std::string& value) {
  auto all = redis.call({"XRANGE", key, "-", "+"});
  std::size_t n = 0;
  for (std::size_t i = 0; i < all->view().size(); ++i)
    n += store::stream_field(all->view()[i][1], field) == value;
  return n;
}

} // namespace simsync::testing
