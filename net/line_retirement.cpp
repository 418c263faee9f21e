#include "net/line_retirement.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cctype>

namespace simsync::net {

namespace {

/// Only an idcode routes to a shard (config::shard_of throws otherwise).
bool routable(const std::string& owner) {
  return owner.size() >= 8 && std::all_of(owner.begin(), owner.begin() + 8, [](char x) {
           return std::isxdigit(static_cast<unsigned char>(x)) != 0;
         });
}

void release_claim(const exchange_ptr& ex, const std::string& line,
                   const std::string& owner, std::function<void()> done) {
  auto shard = config::shard_of_line(line, ex->ctx().shard_count);
  ex->ask_at(
      shard, [done = std::move(done)](bool) { done(); }, atom::release_v, line, owner);
}

} // namespace

void retire_line(const exchange_ptr& ex, const std::string& line,
                 const std::string& owner, const std::string& proof,
                 std::function<void(bool line_removed, bool account_removed)> done) {
  if (!routable(owner))
    return release_claim(ex, line, owner, [done] { done(false, false); });
  ex->ask_or(
      owner,
      [ex, line, owner, done](bool account_removed) {
        // The line is gone: release its claim. Should this step not
        // happen, the claim is an orphan that another person takes over once
        // it is old (see the registration's claim step).
        release_claim(ex, line, owner,
                      [done, account_removed] { done(true, account_removed); });
      },
      [ex, line, owner, done](caf::error& err) {
        if (err != ec::unknown_line)
          return ex->fail(err);
        release_claim(ex, line, owner, [done] { done(false, false); });
      },
      atom::remove_line_v, owner, line, proof);
}

} // namespace simsync::net
