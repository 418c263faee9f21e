#pragma once

#include "core/content_hash.hpp"
#include "core/stamp.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace simsync::core {

/// One version of a contact in a store: its stamp, whether it is a tombstone,
/// the hash of its canonical form and its original bytes.
struct stamped_card {
  stamp st;
  bool deleted = false;
  content_hash hash; ///< zero for a tombstone
  std::string card;  ///< empty for a tombstone
  /// A tombstone's author removed the version stamped so, the one it had
  /// seen; an edit it had not seen outlives it (see supersedes()). Equal to
  /// `st` for tombstones written before removals named their version.
  stamp removes;
};

/// Whether `a` takes the place of `b` when both are versions of one contact:
/// the order every replica agrees on. A live version sorts by its stamp; a
/// tombstone sorts just after the version it removes (then by its own
/// stamp), so a removal never takes away an edit its author had not seen,
/// whatever its own stamp. A total order: replicas converge whatever the
/// order, duplication or delay of the changes they receive.
bool supersedes(const stamped_card& a, const stamped_card& b);

/// The byte forms of a stamped card, shared by C++ and the store's Lua
/// scripts (store/contract/record.list). The text form, which travels
/// between carriers:
///   HLC(16 digits, zero padded)|HASH(32 hex)|L or D|carrier|line|card bytes
/// where a tombstone's "card bytes" are the stamp it removes, written the
/// same way: HLC|carrier|line. The compact form, which the store keeps:
///   L or D, HLC(8 bytes, big-endian), HASH(16 bytes), carrier|line|card bytes
/// which starts with its flag where the text form starts with a digit. The
/// fixed-width head lets Lua compare stamps and hashes without parsing the
/// card; a carrier id or msisdn never holds '|'. In the compact form the
/// origin may be its number instead (origin_number): a mark, then the
/// number's bytes, then the card bytes, for a reader that holds the
/// account's table of origins (origin_names).
enum class record_form { text, compact };

/// The number an origin is written as in the compact form: a few bytes of
/// the hash of its text, so that the node numbers a record's origin without
/// asking the store. Two origins may share one: the store's table of the
/// account's origins holds the first to claim it, and a record of any other
/// origin keeps it written out (store/contract/record.list).
std::string origin_number(std::string_view carrier, std::string_view line);

/// An account's numbered origins: number -> "carrier|line" (record_origin's
/// form), as the store's table of them holds them.
using origin_names = std::unordered_map<std::string, std::string>;

/// A stamped card in the compact form (the text form for an HLC of 2^53 or
/// more, which the scripts could not read exactly as a number).
std::string encode_record(const stamped_card& rec);

/// encode_record() of a live version stamped (hlc, carrier, line), made from
/// its parts: how a line's upload hands each of its cards to the store, with
/// its origin as `number` (origin_number) unless that is empty.
std::string encode_live_record(std::uint64_t hlc, const content_hash& hash,
                               std::string_view carrier, std::string_view line,
                               std::string_view card, std::string_view number = {});

/// The form `record` is written in, for bytes that record_body_at() accepts.
record_form form_of(std::string_view record);

/// Appends the head of `record` (all before its body) to `out` written in
/// `form` (the text form for an HLC the compact form does not take), its
/// origin written out: a numbered one as `names` name it. False, with `out`
/// as it was, if `record` is not a record (checked_record_hlc's rules for
/// its head, a numbered origin allowed) or its origin's number is not in
/// `names`. How the store sends a peer the text form of what it keeps.
bool append_record_head(std::string& out, std::string_view record, record_form form,
                        const origin_names* names = nullptr);

/// Appends `record` to `out` in its own form with its origin written out (a
/// numbered one as `names` name it), all else as it is; false, with `out`
/// as it was, if it has no record's head or its origin is a number `names`
/// does not name. Nothing else of it is checked (append_record_head()
/// checks it on its way to a peer). How the store reads what it sends a
/// peer.
bool append_record_written_out(std::string& out, std::string_view record,
                               const origin_names* names);

/// Appends the head of `record`, whose origin is written out, to `out` in
/// the compact form with the origin as `number` (the text form for an HLC
/// the compact form does not take); false, with `out` as it was, if its
/// origin is not written out or `record` is not a record (a compact head's
/// parts before the origin are copied unchecked: for a record
/// checked_record_hlc() took). How the store keeps what a peer sends.
bool append_numbered_head(std::string& out, std::string_view record,
                          std::string_view number);

/// Where a record's last part starts: a live version's card bytes, or the
/// stamp a tombstone removes. std::string_view::npos unless `bytes` begins
/// with a record's head, in either form (the store seals and opens the card
/// in place).
std::size_t record_body_at(std::string_view bytes);

/// A record's origin as its head writes it, "carrier|line", for a record
/// whose head record_body_at() accepted; empty when the head writes its
/// number instead (record_origin_number). History notes each change's
/// origin in this form (store/contract/history.list).
std::string_view record_origin(std::string_view record);

/// The number a compact record's head writes its origin as; empty when it
/// writes the origin out. For a record whose head record_body_at() accepted.
std::string_view record_origin_number(std::string_view record);

/// The carrier and the line of an origin in record_origin()'s form (views
/// into it); the whole of it as the carrier, and no line, without a separator.
struct origin_parts {
  std::string_view carrier;
  std::string_view line;
};
origin_parts split_origin(std::string_view origin);

/// Whether a record whose head record_body_at() accepted is a tombstone.
bool record_is_tombstone(std::string_view record);

/// The HLC of the stamp of `bytes` when they have a record's form, as the
/// store takes one from a peer: the head HLC(16 digits)|HASH(32 hex)|L or
/// D|carrier|line|, or the compact form's (its HLC below 10^16), with
/// neither carrier nor line holding '|' and the carrier not starting with
/// the origin number's mark (the origin written out: a peer cannot name
/// this store's numbers), then a live
/// version's card (any bytes: sealed, or compressed) or a tombstone's
/// nothing or the stamp it removes, HLC(16 digits)|carrier|line, neither
/// holding '|'. nullopt otherwise. The one check of an incoming record's
/// form: the store's scripts read its head as this has checked it.
std::optional<std::uint64_t> checked_record_hlc(std::string_view bytes);

/// Parses encode_record's output; nullopt if the bytes are not a record
/// (checked_record_hlc's rules, and a hash of 32 hex digits), or if its
/// origin is a number that `names` does not name.
std::optional<stamped_card> decode_record(std::string_view bytes,
                                          const origin_names* names = nullptr);

/// decode_record() into `out`, whose strings keep their room: one record kept
/// from card to card where a batch's records are only checked. False if the
/// bytes are not a record (`out` then holds nothing to rely on).
bool decode_record(std::string_view bytes, stamped_card& out,
                   const origin_names* names = nullptr);

} // namespace simsync::core
