#pragma once

// Every actor interface of a carrier node (CAF 0.17 typed actors).

#include "actors/protocol.hpp"

#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace simsync {

/// Owns the accounts whose idcode hashes to its shard and serializes every
/// operation on them; each handler is one store script (one Redis round trip).
using account_shard_actor = caf::typed_actor<
  /// F1: creates the account for an idcode or adds the line to it.
  caf::replies_to<atom::register_line, store::register_request>::with<
    store::register_result>,
  /// The registered line for an msisdn, if this shard's store knows it.
  caf::replies_to<atom::find_line, std::string>::with<caf::optional<store::line_info>>,
  /// F2 (shared) and F7 (private): a snapshot, delta or removal from a line.
  caf::replies_to<atom::upload, store::upload_request>::with<store::upload_result>,
  /// F4: one batch from a sibling carrier (idcode, batch).
  caf::replies_to<atom::replicate, std::string, std::string>::with<store::replicate_result>,
  /// F5: the pending counts of (idcode, line).
  caf::replies_to<atom::update, std::string, std::string>::with<store::pending_counts>,
  /// F6: fetch the pending changes of (idcode, line) with a cursor.
  caf::replies_to<atom::fetch, std::string, std::string>::with<store::pending_fetch>,
  /// F6: acknowledge (idcode, line, cursor, decision); replies with the changes done.
  caf::replies_to<atom::ack, std::string, std::string, std::string,
                  store::decision>::with<std::uint64_t>,
  /// The live cards of (idcode, line)'s shared store or private backup.
  caf::replies_to<atom::read_cards, std::string, std::string, store::scope>::with<
    std::vector<store::stored_card>>,
  /// F1 announce: (idcode, peer carrier) holds an account; true if new.
  caf::replies_to<atom::add_sibling, std::string, std::string>::with<bool>>;

} // namespace simsync
