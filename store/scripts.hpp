#pragma once

#include "store/async_redis.hpp"
#include "store/redis_client.hpp"
#include "store/script_list.hpp" // enum script, made from the files in store/lua/

#include <caf/expected.hpp>

#include <string_view>
#include <vector>

namespace simsync::store {

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
