#pragma once

#include <string>

/// Redis key names used from C++ (docs/architecture.md, section 7). The scripts build
/// the same names in store/lua/lib.lua; change both together.
namespace simsync::store::keys {

inline std::string tag(const std::string& idcode) {
  return "{" + idcode + "}";
}
inline std::string account(const std::string& id) {
  return "acct:" + tag(id);
}
inline std::string shared(const std::string& id) {
  return "shared:" + tag(id);
}
inline std::string history(const std::string& id) {
  return "history:" + tag(id);
}
inline std::string siblings(const std::string& id) {
  return "dir:" + tag(id);
}
inline std::string private_backup(const std::string& id, const std::string& line) {
  return "private:" + tag(id) + ":" + line;
}
inline std::string private_history(const std::string& id, const std::string& line) {
  return "phistory:" + tag(id) + ":" + line;
}
inline std::string pending(const std::string& id, const std::string& line) {
  return "pending:" + tag(id) + ":" + line;
}
inline std::string base(const std::string& id, const std::string& line) {
  return "base:" + tag(id) + ":" + line;
}
/// The line's own fields: its mailbox's sequence, its msisdn sealed to the
/// idcode (what its history shows), how far its private history reaches.
inline std::string line(const std::string& id, const std::string& line) {
  return "line:" + tag(id) + ":" + line;
}
/// uids whose pending change the line discarded ("keep mine"): its next
/// upload that holds them writes them again, so every carrier converges on it.
inline std::string reassert(const std::string& id, const std::string& line) {
  return "reassert:" + tag(id) + ":" + line;
}
/// The line ids (core/line_id.hpp) of the account's lines. Every key below
/// named by a line takes its line id, never the msisdn.
inline std::string sims(const std::string& id) {
  return "sims:" + tag(id);
}
inline std::string sim(const std::string& line) {
  return "sim:" + line;
}
/// The one owner of a line in the carrier, at the shard the line routes to
/// (config::shard_of_line), whichever node holds the owner's account.
inline std::string claim(const std::string& line) {
  return "claim:" + line;
}
/// The uids of the line's open paged fetch, in page order.
inline std::string fetchlist(const std::string& id, const std::string& line) {
  return "fetchlist:" + tag(id) + ":" + line;
}
inline std::string outbox(const std::string& peer) {
  return "outbox:" + peer;
}

} // namespace simsync::store::keys
