#pragma once

// Every message type simsync actors exchange, within a node and between
// nodes and carriers: inspect overloads (CAF 0.17 form), atoms, and the
// project's type-ID block. Register with add_message_types<caf::id_block::simsync>().

#include "core/book.hpp"
#include "core/record.hpp"
#include "metrics/actor_status.hpp"
#include "store/account_store.hpp"
#include "store/dead_letters.hpp"
#include "store/outbox.hpp"
#include "store/set_aside.hpp"
#include "store/subscriber_registry.hpp"

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/type_id.hpp>

#include <string>
#include <vector>

// -- core types ---------------------------------------------------------------

namespace simsync::core {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, content_hash& x) {
  return f(caf::meta::type_name("content_hash"), x.hi, x.lo);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, book_entry& x) {
  return f(caf::meta::type_name("book_entry"), x.uid, x.hash, x.card, x.index,
           x.uid_assigned);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stamp& x) {
  return f(caf::meta::type_name("stamp"), x.hlc, x.carrier, x.line);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stamped_card& x) {
  return f(caf::meta::type_name("stamped_card"), x.st, x.deleted, x.hash, x.card,
           x.removes);
}

} // namespace simsync::core

// -- store types --------------------------------------------------------------

namespace simsync::store {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, register_request& x) {
  return f(caf::meta::type_name("register_request"), x.idcode, x.line, x.iccid_hash,
           x.token_hash, x.sealed_user_info, x.now_ms, x.peers, x.sealed_msisdn);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, register_result& x) {
  return f(caf::meta::type_name("register_result"), x.account_created, x.line_added);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, mass_deletion_guard& x) {
  return f(caf::meta::type_name("mass_deletion_guard"), x.min_cards, x.percent);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, upload_request& x) {
  return f(caf::meta::type_name("upload_request"), x.idcode, x.line, x.token_hash,
           x.scope, x.mode, x.cards, x.uids, x.allow_removals, x.now_ms, x.guard,
           x.confirm_removals, x.later_part, x.scan_cursor, x.scan_count);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, upload_conflict& x) {
  return f(caf::meta::type_name("upload_conflict"), x.uid, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, upload_result& x) {
  return f(caf::meta::type_name("upload_result"), x.version, x.added, x.changed,
           x.removed, x.unchanged, x.conflicts, x.would_remove, x.book_size,
           x.cards_to_send, x.base_holds, x.base_size, x.discarded, x.base_uids,
           x.scan_cursor);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, history_change& x) {
  return f(caf::meta::type_name("history_change"), x.id, x.uid, x.at_ms, x.kind,
           x.carrier, x.line);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, history_page& x) {
  return f(caf::meta::type_name("history_page"), x.changes, x.sealed_msisdns, x.next);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, restore_request& x) {
  return f(caf::meta::type_name("restore_request"), x.idcode, x.line, x.token_hash,
           x.scope, x.at_ms, x.preview, x.now_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replicate_result& x) {
  return f(caf::meta::type_name("replicate_result"), x.applied, x.identical, x.stale,
           x.asked, x.answered, x.siblings_added, x.siblings_removed, x.not_sibling);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pending_counts& x) {
  return f(caf::meta::type_name("pending_counts"), x.added, x.changed, x.removed);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ack_progress& x) {
  return f(caf::meta::type_name("ack_progress"), x.acknowledged, x.finished);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pending_change& x) {
  return f(caf::meta::type_name("pending_change"), x.uid, x.kind, x.record);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pending_request& x) {
  return f(caf::meta::type_name("pending_request"), x.idcode, x.line, x.token_hash,
           x.limit, x.next, x.known_tag);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pending_fetch& x) {
  return f(caf::meta::type_name("pending_fetch"), x.cursor, x.counts, x.changes, x.next,
           x.tag, x.not_modified);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claim_result& x) {
  return f(caf::meta::type_name("claim_result"), x.claimed, x.owner, x.since_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stored_card& x) {
  return f(caf::meta::type_name("stored_card"), x.uid, x.record);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, outbox_entry& x) {
  return f(caf::meta::type_name("outbox_entry"), x.id, x.idcode, x.kind, x.batch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sealed_delivery& x) {
  return f(caf::meta::type_name("sealed_delivery"), x.origin, x.entries, x.items);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_info& x) {
  return f(caf::meta::type_name("line_info"), x.idcode, x.iccid_hash, x.token_hash);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, dead_letter& x) {
  return f(caf::meta::type_name("dead_letter"), x.entry, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kept_letter& x) {
  return f(caf::meta::type_name("kept_letter"), x.id, x.letter, x.at_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, aside_entry& x) {
  return f(caf::meta::type_name("aside_entry"), x.id, x.why, x.at_ms, x.idcode, x.kind,
           x.cards);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, subscriber_record& x) {
  return f(caf::meta::type_name("subscriber_record"), x.line, x.iccid_hash, x.idcode,
           x.sealed_user_info, x.active);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, subscriber_outcome& x) {
  return f(caf::meta::type_name("subscriber_outcome"), x.change, x.existed,
           x.retire_owner);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, code_request& x) {
  return f(caf::meta::type_name("code_request"), x.line, x.iccid_hash, x.code_hash,
           x.now_ms, x.ttl_ms, x.window_ms, x.codes_per_window);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, code_check& x) {
  return f(caf::meta::type_name("code_check"), x.line, x.code_hash, x.now_ms,
           x.max_attempts);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, verified_subscriber& x) {
  return f(caf::meta::type_name("verified_subscriber"), x.idcode, x.iccid_hash,
           x.sealed_user_info);
}

} // namespace simsync::store

namespace simsync::metrics {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, actor_status& x) {
  return f(caf::meta::type_name("actor_status"), x.name, x.kind, x.shard, x.mailbox,
           x.processed, x.restarts, x.last_error, x.latency_counts, x.latency_sum_us,
           x.peer, x.link_state, x.outbox, x.lag_ms, x.batches_sent, x.bytes_sent,
           x.acknowledged, x.card_forms, x.refused, x.directory, x.paced);
}

} // namespace simsync::metrics

// -- messages of the actors themselves ----------------------------------------

namespace simsync {

/// A peer carrier's outbox entries, in stream order (batches of stamped
/// changes, and the directory's asks, holds and retirements), once their
/// signature checked out: what a node's federation endpoint hands its
/// router. The reply, sent once every entry is persisted, is the ack.
struct peer_batch {
  std::string origin; ///< sending carrier
  std::vector<store::outbox_entry> entries;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, peer_batch& x) {
  return f(caf::meta::type_name("peer_batch"), x.origin, x.entries);
}

/// What an entry asks of the receiving carrier, as a number between
/// carriers. The numbers never change meaning: 1 was "announce", which an ask
/// replaced with the same effect for a receiver that holds the account.
/// A compressed batch is a batch whose cards may be compressed
/// (core/card_compression.hpp), sent only to a node that said it takes them
/// (atom::card_forms); a kind of its own, so that a node that does not is
/// refused the whole batch as malformed rather than each card as not parsing.
enum class wire_kind : std::int32_t {
  batch = 0,
  ask = 1,
  retire = 2,
  hold = 3,
  compressed_batch = 4
};

/// One outbox entry as it travels between carriers, inside a signed batch.
/// A type of its own rather than the store's outbox_entry, so that what
/// another company's nodes read does not change when this store's does.
/// The kind is a plain number, checked when the batch is opened: a number
/// the receiver does not know makes the batch malformed instead of reaching
/// the store as an enum value it never names.
struct wire_entry {
  std::string id;        ///< the sender's outbox stream id: the peer acks through it
  std::string idcode;    ///< the account
  std::int32_t kind = 0; ///< a wire_kind
  std::string batch;     ///< for a batch: netstrings of uid, record pairs
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, wire_entry& x) {
  return f(caf::meta::type_name("wire_entry"), x.id, x.idcode, x.kind, x.batch);
}

/// What a peer_link sends to one node of a sibling carrier (the node owning
/// the entries' shards): outbox entries in stream order as wire entries,
/// serialized, and signed with the origin carrier's Ed25519 key
/// (actors/signed_batch.hpp).
/// One message per node and window (more only past 512 KiB of batches), so a
/// window of interactive edits costs one request and one signature.
struct signed_batch {
  std::string origin;    ///< the sending carrier, as the receiver knows it
  std::string to;        ///< the receiving carrier: a batch is good for one
  std::string payload;   ///< the wire entries, CAF binary serialization
  std::string signature; ///< Ed25519, over signed_batch_text()
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, signed_batch& x) {
  return f(caf::meta::type_name("signed_batch"), x.origin, x.to, x.payload, x.signature);
}

} // namespace simsync

// -- atoms (at most 10 characters in CAF 0.17) --------------------------------

CAF_ADD_ATOM(simsync, simsync::atom, register_line, "regline")
CAF_ADD_ATOM(simsync, simsync::atom, find_line, "findline")
CAF_ADD_ATOM(simsync, simsync::atom, upload, "upload")
CAF_ADD_ATOM(simsync, simsync::atom, replicate, "replicate")
CAF_ADD_ATOM(simsync, simsync::atom, update, "update")
CAF_ADD_ATOM(simsync, simsync::atom, fetch, "fetch")
CAF_ADD_ATOM(simsync, simsync::atom, ack, "ack")
CAF_ADD_ATOM(simsync, simsync::atom, read_cards, "readcards")
CAF_ADD_ATOM(simsync, simsync::atom, remove_line, "rmline")
CAF_ADD_ATOM(simsync, simsync::atom, history, "history")
CAF_ADD_ATOM(simsync, simsync::atom, restore, "restore")
CAF_ADD_ATOM(simsync, simsync::atom, deliver, "deliver")
CAF_ADD_ATOM(simsync, simsync::atom, shards, "shards")
CAF_ADD_ATOM(simsync, simsync::atom, join, "join")
CAF_ADD_ATOM(simsync, simsync::atom, replaced, "replaced")
CAF_ADD_ATOM(simsync, simsync::atom, restart, "restart")
CAF_ADD_ATOM(simsync, simsync::atom, status, "status")
CAF_ADD_ATOM(simsync, simsync::atom, tick, "tick")
CAF_ADD_ATOM(simsync, simsync::atom, claim, "claim")
CAF_ADD_ATOM(simsync, simsync::atom, release, "release")
CAF_ADD_ATOM(simsync, simsync::atom, token_hashes, "tokens")
CAF_ADD_ATOM(simsync, simsync::atom, put_subscriber, "putsub")
CAF_ADD_ATOM(simsync, simsync::atom, delete_subscriber, "delsub")
CAF_ADD_ATOM(simsync, simsync::atom, issue_code, "issuecode")
CAF_ADD_ATOM(simsync, simsync::atom, verify_code, "verifycode")
CAF_ADD_ATOM(simsync, simsync::atom, run, "run")
CAF_ADD_ATOM(simsync, simsync::atom, dead_letter, "deadletter")
CAF_ADD_ATOM(simsync, simsync::atom, drop_letter, "dropletter")
CAF_ADD_ATOM(simsync, simsync::atom, set_aside, "setaside")
CAF_ADD_ATOM(simsync, simsync::atom, drop_aside, "dropaside")
CAF_ADD_ATOM(simsync, simsync::atom, resolve, "resolve")
CAF_ADD_ATOM(simsync, simsync::atom, card_forms, "cardforms")

// The project's type-ID block is at the end of actors/actors.hpp: it also
// registers the actor handles that travel between nodes.
