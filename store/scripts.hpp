#pragma once

#include "store/async_redis.hpp"
#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <string_view>
#include <vector>

namespace simsync::store {

/// The store's Lua scripts, one per flow step (store/lua/<name>.lua), each a
/// function of one Redis function library with store/lua/lib.lua at its head.
enum class script {
  register_line,
  upload,
  apply_incoming,
  update_request,
  fetch_pending,
  ack_pending,
  remove_line,
  claim_line,
  release_claim,
  restore,
  put_subscriber,
  delete_subscriber,
  issue_code,
  verify_code,
  reseal_hash,
  reseal_stream,
  check_access,
};

/// Runs a script with ARGV `args` in one round trip (FCALL of its function),
/// loading the library first when the server does not hold this build's
/// (a new server, or one another build loaded its library into).
/// A script's own failure ("SIMSYNC <code> [context]") becomes that
/// simsync::ec, with the context when the script gave one; any other Redis
/// error is ec::store_unavailable.
caf::expected<reply> run_script(redis_client& redis, script which,
                                const std::vector<std::string_view>& args);

/// The same on an asynchronous connection: `done` gets the script's reply,
/// or the error the blocking run_script would return.
void run_script(async_redis& redis, script which,
                const std::vector<std::string_view>& args, async_redis::handler done);

} // namespace simsync::store
