#pragma once

// Tells the operator when one owner of a Redis connection (a shard, a peer
// link, the gateway's store) loses its Redis and when it has it back: one
// line per change, not one per failed call, so that an outage is two lines
// per owner however long it lasts.

#include <string>
#include <string_view>

namespace simsync::store {

class redis_presence {
public:
  /// `owner` names the connection's owner in the log (account_shard/3);
  /// `address` is where Redis is (never who).
  redis_presence(std::string owner, std::string address);

  /// A call failed because Redis could not be reached or the connection
  /// broke: logs redis_lost with `why`, unless already lost.
  void lost(std::string_view why);
  /// A call reached Redis: logs redis_back after a loss.
  void reached();

  bool is_lost() const { return lost_; }

private:
  std::string owner_;
  std::string address_;
  bool lost_ = false;
};

} // namespace simsync::store
