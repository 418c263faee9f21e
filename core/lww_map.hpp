#pragma once

#include "core/record.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::core {

/// What apply() did with a change.
enum class apply_outcome {
  applied,   ///< newer and different content: the visible state changed
  stale,     ///< not newer than the held version: nothing changed
  identical, ///< newer but same content (or a duplicate): nothing visible changed
};

/// A last-writer-wins map uid -> stamped_card with tombstones: the model of a
/// shared store, which the store's Lua scripts implement (F4 and the data semantics of
/// docs/architecture.md).
///
/// The held version of a uid is always the greatest ever received in the
/// order of supersedes() (by stamp, a tombstone just after the version it
/// removes), so replicas that receive the same changes in any order, with any
/// duplication, hold the same entries. A stamp names exactly one change: two
/// changes with equal stamps are taken to be the same change.
class lww_map {
public:
  /// Applies one change. A newer change with the same content (same hash, or
  /// both tombstones) still takes over the held stamp and bytes, silently:
  /// keeping the older stamp would let a later, concurrent change win on one
  /// replica and lose on another. An older change with different content is
  /// a losing concurrent edit (its author had not seen the held version, or
  /// its stamp would be greater) and goes to history(), as does a tombstone
  /// that comes after an edit its author had not seen.
  apply_outcome apply(const std::string& uid, const stamped_card& change);

  /// The held version (live or tombstone), or nullptr.
  const stamped_card* get(std::string_view uid) const;
  /// Every held version, tombstones included, by uid.
  const std::map<std::string, stamped_card, std::less<>>& entries() const {
    return entries_;
  }
  /// UIDs of the live (not deleted) entries, sorted.
  std::vector<std::string> live_uids() const;
  /// Number of held versions, tombstones included.
  std::size_t size() const { return entries_.size(); }

  /// Losing concurrent edits received for `uid`, each once, in arrival order.
  /// History is per replica (it depends on arrival order) and is not part of
  /// the converged state; every losing edit is in the history of at least the
  /// winner's origin replica, which held the winner before the loser arrived.
  const std::vector<stamped_card>& history(std::string_view uid) const;
  /// Number of losing edits kept, over all uids.
  std::size_t history_size() const;

  /// Same held versions (stamps, flags, hashes and bytes); history ignored.
  friend bool operator==(const lww_map& a, const lww_map& b);
  friend bool operator!=(const lww_map& a, const lww_map& b) { return !(a == b); }

private:
  void keep_loser(const std::string& uid, const stamped_card& loser);

  std::map<std::string, stamped_card, std::less<>> entries_;
  std::map<std::string, std::vector<stamped_card>, std::less<>> history_;
};

} // namespace simsync::core
