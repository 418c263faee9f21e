#pragma once

#include "core/keyring.hpp"
#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::store {

/// What an outbox entry asks of the peer (account_store::apply_incoming; in
/// store/lua/lib.lua: replicate_in, answer_ask, take_hold, take_retire).
/// Between carriers an entry travels as a wire_entry (actors/protocol.hpp).
enum class outbox_kind {
  batch,  ///< apply stamped changes
  ask,    ///< this carrier created an account for the idcode: does the peer hold one?
  hold,   ///< this carrier holds an account for the idcode (the answer to an ask)
  retire, ///< this carrier no longer holds it
};

/// The kind as the store's scripts write it in an entry ("batch", "ask",
/// "hold", "retire").
std::string_view kind_name(outbox_kind kind);

/// The kind a name written by kind_name() stands for: "announce", which
/// stores wrote before asks existed, is an ask; any other name is a batch.
outbox_kind kind_named(std::string_view name);

/// Whether an entry of this kind is a directory lookup (an ask or a hold):
/// what a peer could use to learn which persons hold an account here, so
/// the user_directory paces them per peer.
bool is_lookup(outbox_kind kind);

/// The value of field `name` of a stream entry's field list (XRANGE, XREAD);
/// empty when absent.
std::string stream_field(reply_view fields, std::string_view name);

/// The count an entry's "uids" or "cards" field gives; nullopt unless it is
/// digits alone.
std::optional<std::uint64_t> listed_count(std::string_view digits);

/// The uid, record pairs an outbox entry's fields carry, as netstrings (what
/// outbox_entry::batch holds, still sealed): after id, kind, "cards" and
/// their count, each pair as two fields (entries written before the outbox
/// named its cards, and the book sent before an account is removed), or the
/// netstrings of a "batch" field (entries older still). Empty for an entry
/// without cards (ask, hold, retire) and for one that names them ("uids", its
/// count, then the uids and "" after an odd count: the records are in the
/// shared store, where read_outbox reads them); nullopt when the count does
/// not match the fields that follow it.
std::optional<std::string> outbox_batch(reply_view fields);

/// One message for a peer carrier about one account. Written by the store's
/// scripts in the same transaction as the change it carries, so nothing
/// acknowledged is lost; removed only once the peer has persisted it.
struct outbox_entry {
  std::string id;     ///< stream id, increasing: the peer acknowledges through it
  std::string idcode; ///< the account at the peer
  outbox_kind kind = outbox_kind::batch;
  std::string batch; ///< for a batch: netstrings of uid, record pairs (may be empty)
};

/// Up to `count` entries for `peer` after stream id `after` ("0-0" for the
/// start), their cards still sealed as stored (unseal_entry opens them). The
/// cards an entry names are read from the account's shared store as it is
/// now (never older than when the entry was written), in one more round trip
/// for all the entries read; a uid it no longer holds is left out, so an
/// entry may come back with an empty batch (the link sends it nowhere).
/// When none is there yet, waits up to `wait` for one to arrive (XREAD BLOCK;
/// 0, the default, does not wait): the link learns of a change as soon as it
/// is written, without polling. An error (store_corrupt) if an entry's fields
/// do not make one.
caf::expected<std::vector<outbox_entry>>
read_outbox(redis_client& redis, const std::string& peer, const std::string& after,
            std::size_t count, std::chrono::milliseconds wait = {});

/// Opens the cards of `entry` (read by read_outbox for `peer`) with `keys`,
/// leaving them compressed (the form they are stored in,
/// store/sealed_records.hpp): they leave for the peer, which seals them with
/// its own keys. A link opens each request's entries as it sends it, so its
/// first request goes before the rest of a window is opened. An error
/// (store_corrupt), and the entry left as it was, if its cards were sealed
/// with a key `keys` lacks, or altered (store/set_aside.hpp).
caf::error unseal_entry(const core::keyring& keys, outbox_entry& entry,
                        const std::string& peer);

/// Removes every entry up to and including `through` once the peer has
/// persisted them. Returns how many were removed.
caf::expected<std::size_t> trim_outbox(redis_client& redis, const std::string& peer,
                                       const std::string& through);

/// Entries waiting for `peer`.
caf::expected<std::size_t> outbox_depth(redis_client& redis, const std::string& peer);

/// When the oldest entry for `peer` after `after` was written (Unix
/// milliseconds, from its stream id), or 0 when there is none.
caf::expected<std::uint64_t> oldest_outbox_ms(redis_client& redis,
                                              const std::string& peer,
                                              const std::string& after = "0-0");

/// When an entry was written (Unix milliseconds), from its stream id "<ms>-<seq>".
std::uint64_t stream_id_ms(std::string_view id);

} // namespace simsync::store
