#include "store/scripts.hpp"

#include "core/digest.hpp"
#include "store/failures.hpp" // made from store/contract/failures.list

#include <array>
#include <string>
#include <vector>

namespace simsync::store {

namespace {

/// The scripts as one Redis function library (Redis 7). lib.lua runs once,
/// when the server loads the library, rather than before every call as it
/// did with EVALSHA (where defining its ~70 functions cost ~35 µs a call);
/// each script is the body of a function of its own, ARGV its argument.
/// Function names end with the library's version, a digest of every source,
/// so a node only ever runs its own code: another build's call finds no
/// function of its name and loads its own library, which replaces the one
/// there (one "simsync" library per server, never a trail of old ones).
struct function_library {
  std::string text;
  std::vector<std::string> names; ///< per enum script
};

/// The first line of a script that only reads. Its function is registered
/// with Redis's no-writes flag, so that it still runs when Redis is at its
/// maxmemory and refuses writes (noeviction): there Redis refuses every
/// function call not so flagged, even one that writes nothing, and a line
/// could not read its own book. Redis refuses any write the function tries.
constexpr std::string_view reads_only_mark = "-- flags: no-writes\n";

function_library make_library() {
  std::string head(detail::lua_contract);
  head.append(detail::lua_lib);
  std::string everything = head;
  for (auto body : detail::script_bodies)
    everything.append(body);
  auto version = core::hex(core::sha256(everything)).substr(0, 16);
  function_library out;
  out.text = "#!lua name=simsync\n";
  out.text.append(head);
  for (std::size_t i = 0; i < detail::script_bodies.size(); ++i) {
    auto name = std::string(detail::script_names[i]) + "_" + version;
    auto body = detail::script_bodies[i];
    bool reads_only = body.substr(0, reads_only_mark.size()) == reads_only_mark;
    out.text += "\nredis.register_function{function_name='" + name + "'";
    out.text += reads_only ? ", flags={'no-writes'}" : "";
    out.text += ", callback=function(KEYS, ARGV)\n";
    out.text += "begin_call()\n";
    out.text.append(body);
    out.text += "\nend}\n";
    out.names.push_back(std::move(name));
  }
  return out;
}

const function_library& library() {
  static const function_library lib = make_library();
  return lib;
}

caf::error error_of(std::string_view message) {
  constexpr std::string_view prefix = "SIMSYNC ";
  auto at = message.find(prefix);
  if (at != std::string_view::npos) {
    auto name = message.substr(at + prefix.size());
    for (const auto& known : detail::script_failures) {
      if (name.substr(0, known.name.size()) != known.name)
        continue;
      auto context = name.substr(known.name.size());
      if (context.empty() || context.front() != ' ')
        return caf::make_error(known.code);
      return caf::make_error(known.code, std::string(context.substr(1)));
    }
  }
  return caf::make_error(ec::store_unavailable, "Redis: " + std::string(message));
}

} // namespace

namespace {

/// FCALL of the script's function, with `args` as its ARGV.
command script_call(script which, const std::vector<std::string_view>& args) {
  command cmd;
  cmd.reserve(args.size() + 3);
  cmd.push_back("FCALL");
  cmd.push_back(library().names[static_cast<std::size_t>(which)]);
  cmd.push_back("0");
  cmd.insert(cmd.end(), args.begin(), args.end());
  return cmd;
}

/// The server does not hold this build's library (yet).
bool lacks_library(reply_view v) {
  return v.is_error() && v.str().find("Function not found") != std::string_view::npos;
}

command load_library() {
  return {"FUNCTION", "LOAD", "REPLACE", library().text};
}

} // namespace

caf::expected<reply> run_script(redis_client& redis, script which,
                                const std::vector<std::string_view>& args) {
  auto cmd = script_call(which, args);
  auto result = redis.call(cmd);
  if (!result)
    return result;
  if (lacks_library(result->view())) {
    auto loaded = redis.call(load_library());
    if (!loaded)
      return loaded;
    if (loaded->view().is_error())
      return error_of(loaded->view().str());
    result = redis.call(cmd);
    if (!result)
      return result;
  }
  if (result->view().is_error())
    return error_of(result->view().str());
  return result;
}

void run_script(async_redis& redis, script which,
                const std::vector<std::string_view>& args, async_redis::handler done) {
  // Kept for a second send: the arguments' bytes are gone by the reply.
  auto wire = std::make_shared<wire_command>(script_call(which, args));
  redis.send_wire(wire->bytes(), [&redis, wire, done = std::move(done)](
                                     caf::expected<reply_view> r) mutable {
    if (r && lacks_library(*r)) {
      // The load and the call again, in one round trip.
      auto load_error = std::make_shared<caf::error>();
      redis.send(load_library(), [load_error](caf::expected<reply_view> loaded) {
        if (!loaded)
          *load_error = std::move(loaded.error());
        else if (loaded->is_error())
          *load_error = error_of(loaded->str());
      });
      redis.send_wire(wire->bytes(), [load_error, done = std::move(done)](
                                         caf::expected<reply_view> again) {
        if (*load_error)
          return done(std::move(*load_error));
        if (again && again->is_error())
          return done(error_of(again->str()));
        done(std::move(again));
      });
      return;
    }
    if (r && r->is_error())
      return done(error_of(r->str()));
    done(std::move(r));
  });
}

} // namespace simsync::store
