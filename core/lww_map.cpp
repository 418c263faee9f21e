#include "core/lww_map.hpp"

#include <algorithm>

namespace simsync::core {

namespace {

/// Same meaning: both tombstones, or both live with the same canonical hash.
bool same_content(const stamped_card& a, const stamped_card& b) {
  if (a.deleted || b.deleted)
    return a.deleted == b.deleted;
  return a.hash == b.hash;
}

bool same_version(const stamped_card& a, const stamped_card& b) {
  return a.st == b.st && a.deleted == b.deleted && a.hash == b.hash && a.card == b.card &&
         (!a.deleted || a.removes == b.removes);
}

} // namespace

apply_outcome lww_map::apply(const std::string& uid, const stamped_card& change) {
  auto held = entries_.find(uid);
  if (held == entries_.end()) {
    entries_.emplace(uid, change);
    return apply_outcome::applied;
  }
  stamped_card& current = held->second;
  if (change.st == current.st)
    return apply_outcome::identical;
  bool same = same_content(change, current);
  if (!supersedes(change, current)) {
    if (same)
      return apply_outcome::identical;
    keep_loser(uid, change);
    return apply_outcome::stale;
  }
  current = change;
  return same ? apply_outcome::identical : apply_outcome::applied;
}

void lww_map::keep_loser(const std::string& uid, const stamped_card& loser) {
  auto& losers = history_[uid];
  // Replication is at-least-once: the same loser may arrive again.
  bool known = std::any_of(losers.begin(), losers.end(),
                           [&](const stamped_card& c) { return c.st == loser.st; });
  if (!known)
    losers.push_back(loser);
}

const stamped_card* lww_map::get(std::string_view uid) const {
  auto it = entries_.find(uid);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> lww_map::live_uids() const {
  std::vector<std::string> out;
  for (const auto& [uid, card] : entries_)
    if (!card.deleted)
      out.push_back(uid);
  return out;
}

const std::vector<stamped_card>& lww_map::history(std::string_view uid) const {
  static const std::vector<stamped_card> none;
  auto it = history_.find(uid);
  return it == history_.end() ? none : it->second;
}

std::size_t lww_map::history_size() const {
  std::size_t n = 0;
  for (const auto& [uid, losers] : history_)
    n += losers.size();
  return n;
}

bool operator==(const lww_map& a, const lww_map& b) {
  return std::equal(a.entries_.begin(), a.entries_.end(), b.entries_.begin(),
                    b.entries_.end(), [](const auto& x, const auto& y) {
                      return x.first == y.first && same_version(x.second, y.second);
                    });
}

} // namespace simsync::core
