#pragma once

// Every actor interface of a carrier node (CAF 0.17 typed actors).

#include "actors/protocol.hpp"
#include "metrics/actor_status.hpp"

#include <caf/all.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace simsync {

using metrics::actor_status;

/// Owns the accounts whose idcode hashes to its shard and serializes every
/// operation on them; each handler is one store script (one Redis round trip).
using account_shard_actor = caf::typed_actor<
    /// F1: creates the account for an idcode or adds the line to it.
    caf::replies_to<atom::register_line,
                    store::register_request>::with<store::register_result>,
    /// The registered line of a line id, if this shard's store knows it.
    caf::replies_to<atom::find_line, std::string>::with<caf::optional<store::line_info>>,
    /// F2 (shared) and F7 (private): a snapshot, delta or removal from a line.
    caf::replies_to<atom::upload, store::upload_request>::with<store::upload_result>,
    /// F4 and F1 sibling resolution: a peer carrier's (origin, outbox entries)
    /// for this shard's accounts, applied in order in one store script.
    caf::replies_to<atom::replicate, std::string,
                    std::vector<store::outbox_entry>>::with<store::replicate_result>,
    /// Every request of a line carries the proof that opens it, the SHA-256 of
    /// its SIM token (store::operator_proof: the carrier's own), which the
    /// store checks in the same round trip as the work (ec::bad_token).
    /// F5: the pending counts of (idcode, line, proof).
    caf::replies_to<atom::update, std::string, std::string,
                    std::string>::with<store::pending_counts>,
    /// F6: one page of a fetch (a limit, the previous page's next, If-None-Match).
    caf::replies_to<atom::fetch, store::pending_request>::with<store::pending_fetch>,
    /// F6: acknowledge (idcode, line, proof, cursor, decision), or the next
    /// `step` uids of it (0: all); replies with what the step did.
    caf::replies_to<atom::ack, std::string, std::string, std::string, std::string,
                    store::decision, std::uint32_t>::with<store::ack_progress>,
    /// The live cards of (idcode, line, proof)'s shared store or private backup.
    caf::replies_to<atom::read_cards, std::string, std::string, std::string,
                    store::scope>::with<std::vector<store::stored_card>>,
    /// A page of the changes of (idcode, line, proof)'s shared store or private
    /// backup, newest first, before a change id (empty: the newest), at most N.
    caf::replies_to<atom::history, std::string, std::string, std::string, store::scope,
                    std::string, std::uint64_t>::with<store::history_page>,
    /// Point-in-time restore (or its preview) of a line's book.
    caf::replies_to<atom::restore, store::restore_request>::with<store::upload_result>,
    /// Removes (idcode, line, proof) and its data; true if the account went with it.
    caf::replies_to<atom::remove_line, std::string, std::string, std::string>::with<bool>,
    /// F1's first step, at the shard a line routes to: claims (line id,
    /// idcode, now_ms, take_over_from) for the carrier's one owner.
    caf::replies_to<atom::claim, std::string, std::string, std::uint64_t,
                    std::string>::with<store::claim_result>,
    /// Releases (line id, idcode)'s claim once the line is gone; true if it held it.
    caf::replies_to<atom::release, std::string, std::string>::with<bool>,
    /// The token hashes of every line of an account (idcode): tells a token
    /// of another line (403) from a revoked or unknown one (401).
    caf::replies_to<atom::token_hashes, std::string>::with<std::vector<std::string>>,
    /// Registry, at the shard each line routes to: writes subscriber
    /// records at `now_ms`; one outcome per record, in order.
    caf::replies_to<atom::put_subscriber, std::vector<store::subscriber_record>,
                    std::uint64_t>::with<std::vector<store::subscriber_outcome>>,
    /// Registry: deletes a line's subscriber record (by line id).
    caf::replies_to<atom::delete_subscriber,
                    std::string>::with<store::subscriber_outcome>,
    /// F1: stores a one-time code for a line; replies when it expires (Unix ms).
    caf::replies_to<atom::issue_code, store::code_request>::with<std::uint64_t>,
    /// F1: checks and uses up a one-time code; replies with its subscriber.
    caf::replies_to<atom::verify_code,
                    store::code_check>::with<store::verified_subscriber>,
    /// Keeps a peer's entries that were not applied, with their reasons.
    caf::replies_to<atom::dead_letter, std::string,
                    std::vector<store::dead_letter>>::with<std::uint64_t>,
    /// Up to N of a peer's dead letters, oldest first (the node's first shard
    /// keeps them).
    caf::replies_to<atom::dead_letter, std::string,
                    std::uint64_t>::with<std::vector<store::kept_letter>>,
    /// One of a peer's dead letters by its stream id (none if there is none).
    caf::replies_to<atom::dead_letter, std::string,
                    std::string>::with<std::vector<store::kept_letter>>,
    /// Drops one of a peer's dead letters by its stream id; false if none.
    caf::replies_to<atom::drop_letter, std::string, std::string>::with<bool>,
    /// Up to N of the outbox entries set aside for a peer, oldest first (the
    /// node's Redis keeps them: any of its shards reads them).
    caf::replies_to<atom::set_aside, std::string,
                    std::uint64_t>::with<std::vector<store::aside_entry>>,
    /// Drops one set-aside entry by its stream id; false if none.
    caf::replies_to<atom::drop_aside, std::string, std::string>::with<bool>,
    /// How the shard is doing.
    caf::replies_to<atom::status>::with<actor_status>>;

/// Shards of a carrier: shard indices and their handles, pairwise.
struct node_shards {
  std::vector<int32_t> indices;
  std::vector<account_shard_actor> handles;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_shards& x) {
  return f(caf::meta::type_name("node_shards"), x.indices, x.handles);
}

/// A node's router: every shard of the carrier by index, its own and those
/// of the carrier's other nodes, which it joins on their cluster ports. The
/// gateway, the federation endpoint and the carrier's other nodes route
/// through it. It lives in the node's cluster actor system, which only the
/// carrier's own nodes can reach (TLS, the carrier's cluster CA).
using router_actor = caf::typed_actor<
    /// A peer carrier's entries, their origin verified, each applied by the
    /// shard owning its account (or kept as a dead letter); replies with the
    /// last entry's id once every one is persisted (the acknowledgement).
    caf::replies_to<atom::deliver, peer_batch>::with<std::string>,
    /// Every shard of the carrier this node can reach (its own and its
    /// sibling nodes'): what a gateway or another node routes with.
    caf::replies_to<atom::shards>::with<node_shards>,
    /// Join sibling node N of this carrier (self-sent, retried until it answers).
    caf::reacts_to<atom::join, int32_t>,
    /// Sibling node `id` joined (from its router, which is the sender): this
    /// router routes to it as well; false if `id` is not a node expected to
    /// join this one.
    caf::replies_to<atom::join, std::string>::with<bool>,
    /// The node restarted this node's shard N: route to the new handle.
    caf::reacts_to<atom::replaced, int32_t, account_shard_actor>,
    /// How the router is doing.
    caf::replies_to<atom::status>::with<actor_status>>;

/// A node's user directory: every directory entry a peer carrier sends (an
/// ask, a hold, a retirement: which carriers hold an account for a person)
/// passes through it. It paces each peer's lookups (lookup_pacer), then has
/// the shard owning the account apply them, in stream order with the
/// account's other entries and atomically with the account itself, which
/// the resolution depends on (store/lua/lib.lua answer_ask); it counts what
/// they did. It lives in the cluster actor system.
using user_directory_actor = caf::typed_actor<
    /// A peer's (origin's) entries for the accounts of one shard, at least one
    /// of them a directory entry: applied by `shard` once the origin's pace
    /// allows their lookups; replies with what they did.
    caf::replies_to<atom::resolve, std::string, account_shard_actor,
                    std::vector<store::outbox_entry>>::with<store::replicate_result>,
    /// Apply the paced part with this number: its wait is over (self-sent).
    caf::reacts_to<atom::run, std::uint64_t>,
    /// How the directory is doing (outcomes, paced lookups per peer).
    caf::replies_to<atom::status>::with<actor_status>>;

/// The federation endpoint's second pair of hands, in the federation actor
/// system: while it applies one delivery the endpoint checked, the endpoint
/// checks the next (see federation()).
using federation_applier_actor = caf::typed_actor<
    /// A delivery the endpoint checked and sealed, every entry a change for
    /// an account of this node's shards: applied in one script call; replies
    /// with the last entry's id once every one is persisted (the
    /// acknowledgement).
    caf::replies_to<atom::deliver, store::sealed_delivery>::with<std::string>,
    /// How the applier is doing (entries applied).
    caf::replies_to<atom::status>::with<actor_status>>;

/// What a peer link asks of a node's federation endpoint, which every
/// release's endpoint answers: a link connects to a peer's nodes with this
/// interface, so that it reaches nodes of an older release too (CAF takes a
/// remote actor that answers at least what the handle names).
using federation_delivery_actor = caf::typed_actor<
    /// A peer carrier's signed outbox entries: refused whole unless the
    /// origin is a configured peer, the batch is addressed to this carrier
    /// and the signature is the origin's; else replies with the last
    /// entry's id once every entry is persisted (the acknowledgement).
    caf::replies_to<atom::deliver, signed_batch>::with<std::string>,
    /// How the endpoint is doing (refusals counted by reason).
    caf::replies_to<atom::status>::with<actor_status>>;

/// A node's federation endpoint, the one actor peer carriers can reach (in
/// the node's federation actor system, TLS with the federation's CA): it
/// takes signed batches, and says which forms of a card they may carry.
using federation_actor = federation_delivery_actor::extend<
    /// The card forms this endpoint takes besides cards as they came
    /// (core::compressed_card_form). An endpoint of an older release does
    /// not answer: a link sends it cards as they came.
    caf::replies_to<atom::card_forms>::with<std::set<std::string>>>;

/// Ships one peer carrier's outbox: reads it, sends in order, trims what the
/// peer acknowledged, retries with backoff while the peer is unreachable.
using peer_link_actor = caf::typed_actor<
    /// Look at the outbox again (self-scheduled).
    caf::reacts_to<atom::tick>,
    /// See whether the window in flight waits too long for its acks
    /// (self-scheduled).
    caf::reacts_to<atom::tick, atom::ack>,
    /// How the link is doing: state, outbox depth, what it sent.
    caf::replies_to<atom::status>::with<actor_status>>;

/// Supervises a node's actors: restarts a shard or link that failed, with
/// backoff; on exit, stops them all and waits for them first.
using node_actor = caf::typed_actor<
    /// Every actor of the node, restarts included.
    caf::replies_to<atom::status>::with<std::vector<actor_status>>,
    /// Respawn child N once its backoff has passed (self-sent).
    caf::reacts_to<atom::restart, int32_t>>;

/// Samples the node once a second (its actors, its Redis, its gateway) and
/// publishes the snapshot the admin port serves.
using introspector_actor = caf::typed_actor<
    /// Take the next sample (self-scheduled).
    caf::reacts_to<atom::tick>>;

} // namespace simsync

// -- type IDs -----------------------------------------------------------------

CAF_BEGIN_TYPE_ID_BLOCK(simsync, caf::first_custom_type_id)

CAF_ADD_TYPE_ID(simsync, (simsync::core::book_entry))
CAF_ADD_TYPE_ID(simsync, (simsync::core::stamped_card))
CAF_ADD_TYPE_ID(simsync, (simsync::store::register_request))
CAF_ADD_TYPE_ID(simsync, (simsync::store::register_result))
CAF_ADD_TYPE_ID(simsync, (simsync::store::upload_request))
CAF_ADD_TYPE_ID(simsync, (simsync::store::upload_result))
CAF_ADD_TYPE_ID(simsync, (simsync::store::history_page))
CAF_ADD_TYPE_ID(simsync, (simsync::store::restore_request))
CAF_ADD_TYPE_ID(simsync, (simsync::store::replicate_result))
CAF_ADD_TYPE_ID(simsync, (simsync::store::pending_counts))
CAF_ADD_TYPE_ID(simsync, (simsync::store::ack_progress))
CAF_ADD_TYPE_ID(simsync, (simsync::store::pending_fetch))
CAF_ADD_TYPE_ID(simsync, (simsync::store::decision))
CAF_ADD_TYPE_ID(simsync, (simsync::store::scope))
CAF_ADD_TYPE_ID(simsync, (simsync::store::stored_card))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::store::stored_card>))
CAF_ADD_TYPE_ID(simsync, (simsync::store::line_info))
CAF_ADD_TYPE_ID(simsync, (caf::optional<simsync::store::line_info>))
CAF_ADD_TYPE_ID(simsync, (simsync::store::outbox_entry))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::store::outbox_entry>))
CAF_ADD_TYPE_ID(simsync, (simsync::peer_batch))
CAF_ADD_TYPE_ID(simsync, (simsync::signed_batch))
CAF_ADD_TYPE_ID(simsync, (simsync::account_shard_actor))
CAF_ADD_TYPE_ID(simsync, (simsync::node_shards))
CAF_ADD_TYPE_ID(simsync, (simsync::metrics::actor_status))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::metrics::actor_status>))
CAF_ADD_TYPE_ID(simsync, (simsync::federation_actor))
CAF_ADD_TYPE_ID(simsync, (simsync::router_actor))
CAF_ADD_TYPE_ID(simsync, (simsync::store::pending_request))
CAF_ADD_TYPE_ID(simsync, (simsync::store::claim_result))
CAF_ADD_TYPE_ID(simsync, (simsync::store::subscriber_record))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::store::subscriber_record>))
CAF_ADD_TYPE_ID(simsync, (simsync::store::subscriber_outcome))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::store::subscriber_outcome>))
CAF_ADD_TYPE_ID(simsync, (simsync::store::code_request))
CAF_ADD_TYPE_ID(simsync, (simsync::store::code_check))
CAF_ADD_TYPE_ID(simsync, (simsync::store::verified_subscriber))
CAF_ADD_TYPE_ID(simsync, (simsync::store::dead_letter))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::store::dead_letter>))
CAF_ADD_TYPE_ID(simsync, (simsync::store::kept_letter))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::store::kept_letter>))
CAF_ADD_TYPE_ID(simsync, (simsync::store::aside_entry))
CAF_ADD_TYPE_ID(simsync, (std::vector<simsync::store::aside_entry>))
CAF_ADD_TYPE_ID(simsync, (simsync::user_directory_actor))
CAF_ADD_TYPE_ID(simsync, (simsync::store::sealed_delivery))

CAF_END_TYPE_ID_BLOCK(simsync)
