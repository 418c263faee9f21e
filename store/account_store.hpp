#pragma once

#include "core/book.hpp"
#include "core/keyring.hpp"
#include "core/record.hpp"
#include "store/outbox.hpp"
#include "store/redis_client.hpp"
#include "store/subscriber_registry.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::store {

/// Where an upload goes: the shared store (replicated) or the line's private backup.
enum class scope { shared, private_backup };

/// How an upload reads: the line's whole book, cards to add or change, or
/// uids to remove; or, for a snapshot sent in parts (store/upload_parts.hpp),
/// a compare of some of its cards with what the line holds, a scan of a page
/// of the uids the line holds (neither stores anything), or a prune of the
/// uids the snapshot leaves out, whose removals it makes.
enum class upload_mode { snapshot, delta, remove, compare, scan, prune };

enum class decision { apply, discard };

/// What a pending change means to the line that receives it.
enum class change_kind { added, changed, removed };

struct register_request {
  std::string idcode;
  std::string line;             ///< the line id (core/line_id.hpp), never the msisdn
  std::string iccid_hash;       ///< core::iccid_hash_of the SIM's ICCID
  std::string token_hash;       ///< only the hash of a SIM token is stored
  std::string sealed_user_info; ///< user info encrypted at rest (core/seal.hpp)
  std::uint64_t now_ms = 0;
  std::vector<std::string> peers; ///< peer carriers a new account asks about the person
  /// The msisdn sealed to the idcode: what the line's history shows its
  /// own account, the one place the store keeps the number.
  std::string sealed_msisdn;
};

struct register_result {
  bool account_created = false;
  bool line_added = false;
};

/// How much of a book a snapshot may remove without the phone confirming:
/// more than `min_cards` cards and more than `percent` of the book is held.
struct mass_deletion_guard {
  std::uint32_t min_cards = 10;
  std::uint32_t percent = 30;
};

/// A line-scoped request proves its right to the line with the SHA-256 (hex)
/// of the SIM token it presented (net/token.hpp); the store compares it with
/// the line's own in the same script or pipeline that does the work
/// (ec::bad_token when it differs), so an authorized request costs one round
/// trip. operator_proof, which no SHA-256 in hex equals, is the carrier's own
/// access, for retiring a line (remove_line) and nothing else.
inline constexpr std::string_view operator_proof = "operator";

struct upload_request {
  std::string idcode;
  std::string line;       ///< line id of the uploading line
  std::string token_hash; ///< the proof (operator_proof)
  store::scope scope = scope::shared;
  upload_mode mode = upload_mode::snapshot;
  /// Snapshot and delta; a compare's are some of its snapshot's, uids and
  /// hashes alone (the cards go in deltas).
  std::vector<core::book_entry> cards;
  /// A removal's; a prune's, the uids its snapshot leaves out.
  std::vector<std::string> uids;
  /// A scan's: the HSCAN cursor it starts from ("0" at first), and about
  /// how many uids it answers.
  std::string scan_cursor;
  std::uint64_t scan_count = 0;
  /// False when the book had rejected cards: a quarantined card is never read
  /// as a deletion, so a snapshot with rejects removes nothing.
  bool allow_removals = true;
  std::uint64_t now_ms = 0;
  mass_deletion_guard guard;
  /// The phone confirmed removing up to this many cards (?confirm_removals=).
  std::uint64_t confirm_removals = 0;
  /// A part after the first of an upload sent in parts: not refused for
  /// replication lag, since the first was taken (a refusal would leave the
  /// book half stored and have the phone send all of it again).
  bool later_part = false;

  /// Whether replication lag refuses it (the node sheds shared writes while
  /// a link is too far behind).
  bool refused_when_behind() const { return scope == scope::shared && !later_part; }
};

/// A removal that did not take effect: the card changed since the line saw
/// it ("changed-since-seen") or the line never held it ("not-held"). The
/// current version stays and is offered to the line as pending.
struct upload_conflict {
  std::string uid;
  std::string reason;
};

struct upload_result {
  std::uint64_t version = 0;
  std::size_t added = 0;
  std::size_t changed = 0;
  std::size_t removed = 0;
  std::size_t unchanged = 0;
  std::vector<upload_conflict> conflicts;
  /// Set when the mass-deletion guard held the snapshot: nothing was stored,
  /// it would have removed `would_remove` of the book's `book_size` cards.
  std::size_t would_remove = 0;
  std::size_t book_size = 0;
  /// A compare's (it stores nothing): one character per card it names, in
  /// order, '0' for a card the line holds as it is (counted unchanged), '1'
  /// for one the deltas carry (store/upload_parts.hpp); how many of them
  /// the line's base (or backup) holds, how many cards it holds in all, and
  /// the uids whose changes the line discarded and has not uploaded since.
  std::string cards_to_send;
  std::uint64_t base_holds = 0;
  std::uint64_t base_size = 0;
  std::vector<std::string> discarded;
  /// A scan's (it stores nothing either): a page of the uids the line's
  /// base (or backup) holds, and the cursor of the next ("0": none).
  std::vector<std::string> base_uids;
  std::string scan_cursor;

  bool held_for_confirmation() const { return would_remove > 0; }
};

/// What the history keeps, per store (the account's shared store, each
/// line's private backup): changes younger than keep_ms, in at most
/// keep_count entries (one change, or the additions of one upload).
struct history_policy {
  std::uint64_t keep_ms = 30ull * 24 * 3600 * 1000;
  std::uint64_t keep_count = 10'000;
};

/// One change of a store, as its history lists it.
struct history_change {
  std::string id; ///< its place in the history (a cursor for paging)
  std::string uid;
  std::uint64_t at_ms = 0;
  std::string kind;    ///< added, changed, removed, or lost (a concurrent edit that lost)
  std::string carrier; ///< where the change was made
  std::string line;    ///< the line id of the line that made it
};

struct history_page {
  std::vector<history_change> changes; ///< newest first
  /// Line id -> sealed msisdn (register_request::sealed_msisdn) of the lines
  /// of this account at this carrier that made a change of the page, so the
  /// gateway can show their numbers; a line at another carrier has none here.
  std::map<std::string, std::string> sealed_msisdns;
  /// Where the next page starts ("<entry id>.<changes of it already
  /// listed>"); empty on the last page.
  std::string next;
};

/// What the restore to an instant changes (or would, with preview).
struct restore_request {
  std::string idcode;
  std::string line;
  std::string token_hash; ///< the proof (operator_proof)
  store::scope scope = scope::shared;
  std::uint64_t at_ms = 0;
  bool preview = true;
  std::uint64_t now_ms = 0;
};

/// What a sibling carrier's outbox entries did here, summed over the entries.
struct replicate_result {
  std::size_t applied = 0;   ///< newer and different: stored and offered to the lines
  std::size_t identical = 0; ///< duplicates or same content
  std::size_t stale = 0;     ///< older than what is held: kept in history only
  std::size_t asked = 0;     ///< asks: the peer created an account for the idcode
  std::size_t answered = 0;  ///< asks this carrier answered: it holds the account
  std::size_t siblings_added = 0;   ///< asks and holds of a sibling not known before
  std::size_t siblings_removed = 0; ///< retirements of a sibling that was known
  /// Changes refused because their origin is not a sibling of the account
  /// (not in its dir:{id}): a peer may write only to its own siblings' accounts.
  std::size_t not_sibling = 0;
};

/// A peer's outbox entries made ready for apply_incoming here: each batch's
/// uid, record items with the cards sealed under this carrier's current key
/// (sealed_items). Sealing is the part of an apply that is not Redis's, so a
/// delivery sealed on one thread can be applied on another while the first
/// checks and seals the next.
struct sealed_delivery {
  std::string origin; ///< the peer carrier
  /// In stream order, without their batches: `items` holds them.
  std::vector<outbox_entry> entries;
  /// Per entry: its batch's items (none for a directory entry).
  std::vector<std::vector<std::string>> items;
};

/// Seals the cards of `entries` from `origin` with `keys` (this carrier's
/// current key); ec::invalid_request if a batch is malformed.
caf::expected<sealed_delivery> seal_delivery(const core::keyring& keys,
                                             std::string origin,
                                             const std::vector<outbox_entry>& entries);

struct pending_counts {
  std::size_t added = 0;
  std::size_t changed = 0;
  std::size_t removed = 0;
};

/// What one step of an ack did (account_store::ack_step).
struct ack_progress {
  std::uint64_t acknowledged = 0; ///< the changes the step removed from the mailbox
  bool finished = true;           ///< false: steps remain
};

struct pending_change {
  std::string uid;
  change_kind kind = change_kind::added;
  core::stamped_card record;
};

/// One page of a pending fetch, as a phone asks for it.
struct pending_request {
  std::string idcode;
  std::string line;
  std::string token_hash;  ///< the proof (operator_proof)
  std::uint32_t limit = 0; ///< changes per page; 0: everything (left) in one page
  std::string next;        ///< "" starts a new fetch; else the previous page's next
  /// The mailbox tag the phone holds (If-None-Match), or "": when it is
  /// current, the answer is not_modified and no new fetch starts.
  std::string known_tag;
};

struct pending_fetch {
  std::string cursor;
  /// Counts of the whole fetch (every page), as of its first page.
  pending_counts counts;
  std::vector<pending_change> changes; ///< this page's
  std::string next; ///< the following page's token; "" on the last page
  /// Changes whenever the line's mailbox does (an offer, an ack, an upload, a
  /// new fetch): what an ETag is made of.
  std::string tag;
  bool not_modified = false; ///< known_tag was current: no changes, no new fetch
};

/// The outcome of claiming a line for an idcode (F1's first step).
struct claim_result {
  bool claimed = false;
  std::string owner;          ///< the idcode holding the claim now
  std::uint64_t since_ms = 0; ///< when the owner claimed it (Unix ms)
};

struct stored_card {
  std::string uid;
  core::stamped_card record;
};

/// A registered line as the gateway sees it.
struct line_info {
  std::string idcode;
  std::string iccid_hash;
  std::string token_hash;
};

/// The flows F1-F7 on one Redis instance, one atomic script per step, each
/// one round trip. Not thread-safe (it drives one redis_client).
class account_store {
public:
  /// `carrier` is this carrier's id: the origin written into every stamp.
  /// `keys` seal the cards it writes and open those it reads.
  account_store(redis_client& redis, std::string carrier,
                std::shared_ptr<const core::shared_keyring> keys,
                history_policy history = {});

  // -- F1 ---------------------------------------------------------------------
  caf::expected<register_result> register_line(const register_request& req);
  caf::expected<std::optional<line_info>> find_line(const std::string& line);
  /// The token hashes of every line of the account: whether a token that
  /// does not open one line opens another of the same account.
  caf::expected<std::vector<std::string>> token_hashes(const std::string& idcode);
  /// Removes a line and its data; the last line removes the account, tells
  /// the siblings, and then drops what the operator streams of `peers` (the
  /// carrier's peers) keep about it (drop_account_entries). Returns whether
  /// the account went too.
  caf::expected<bool> remove_line(const std::string& idcode, const std::string& line,
                                  std::string_view token_hash,
                                  const std::vector<std::string>& peers);
  /// Claims the line id `line` for `idcode` in this store, which must be that
  /// of the shard the line routes to (config::shard_of_line): idempotent for
  /// the owner; another idcode's claim is kept (claimed false) unless it is
  /// `take_over_from`, an owner found to hold no line for it.
  caf::expected<claim_result> claim_line(const std::string& line,
                                         const std::string& idcode, std::uint64_t now_ms,
                                         const std::string& take_over_from = "");
  /// Releases `idcode`'s claim of `line`; false if it held none.
  caf::expected<bool> release_claim(const std::string& line, const std::string& idcode);
  /// Writes the carrier's subscriber records (store/subscriber_registry.hpp)
  /// in their order; each one's user info lands sealed with the writer key.
  caf::expected<std::vector<subscriber_outcome>>
  put_subscribers(std::vector<subscriber_record> records, std::uint64_t now_ms);

  // -- F2, F7 -----------------------------------------------------------------
  /// A snapshot that would remove too much of the book stores nothing and
  /// answers held_for_confirmation().
  caf::expected<upload_result> upload(const upload_request& req);

  // -- history and restore ----------------------------------------------------
  /// The changes of the shared store or of the line's private backup, newest
  /// first, from `before` (a page's next; empty: the newest) on.
  caf::expected<history_page> read_history(const std::string& idcode,
                                           const std::string& line,
                                           std::string_view token_hash, scope where,
                                           const std::string& before, std::size_t limit);
  /// Brings the book back to what it held at req.at_ms, as an upload from the
  /// line; with preview, only counts what that would change. Fails
  /// ec::beyond_history when the history no longer reaches that far.
  caf::expected<upload_result> restore(const restore_request& req);

  // -- F4, F1 sibling resolution ----------------------------------------------
  /// Applies outbox entries of the peer carrier `origin` (store/outbox.hpp)
  /// in their order, in one script: a batch is compared, then copied (F4); an
  /// ask is answered, if this carrier holds the account, by recording
  /// `origin` as a sibling and sending it a hold and the whole shared store;
  /// a hold records `origin` (sending the store if it was not known); a
  /// retirement removes it. Without the account nothing is recorded (a hold
  /// gets a retirement back).
  /// Every entry is idempotent, so a resent window does no harm. A malformed
  /// batch refuses the whole call (ec::invalid_request) and changes nothing.
  caf::expected<replicate_result>
  apply_incoming(const std::string& origin, const std::vector<outbox_entry>& entries);
  /// The same, for entries already sealed (seal_delivery).
  caf::expected<replicate_result> apply_incoming(const sealed_delivery& delivery);

  // -- F5, F6 -----------------------------------------------------------------
  caf::expected<pending_counts> request_update(const std::string& idcode,
                                               const std::string& line,
                                               std::string_view token_hash);
  /// Everything pending in one page (a fetch without a limit).
  caf::expected<pending_fetch> fetch_pending(const std::string& idcode,
                                             const std::string& line,
                                             std::string_view token_hash);
  /// One page of a fetch: the first starts it (a new cursor), the following
  /// ones take its `next`; a `next` of an older fetch is ec::stale_cursor.
  caf::expected<pending_fetch> fetch_page(const pending_request& req);
  /// Removes what the fetch with `cursor` delivered (on every page); apply
  /// moves the base where the line has not uploaded the uid since, discard
  /// adds the uids to the line's reassert set. Returns how many changes the
  /// fetch had delivered.
  caf::expected<std::size_t> ack_pending(const std::string& idcode,
                                         const std::string& line,
                                         std::string_view token_hash,
                                         const std::string& cursor, decision what);
  /// One step of that: the next `step` uids of a paged fetch's list (0: all
  /// of them), so that no one call holds Redis for a whole book. The steps
  /// of an ack take one decision; the last moves the line's mark.
  caf::expected<ack_progress> ack_step(const std::string& idcode, const std::string& line,
                                       std::string_view token_hash,
                                       const std::string& cursor, decision what,
                                       std::uint32_t step);

  // -- reads ------------------------------------------------------------------
  /// The live cards of the shared store, or of the line's private backup (F7 restore).
  caf::expected<std::vector<stored_card>> read_cards(const std::string& idcode,
                                                     const std::string& line,
                                                     std::string_view token_hash,
                                                     scope where);

  const std::string& carrier() const { return carrier_; }
  redis_client& redis() { return redis_; }

private:
  redis_client& redis_;
  std::string carrier_;
  std::shared_ptr<const core::shared_keyring> keys_;
  history_policy history_;
};

} // namespace simsync::store
