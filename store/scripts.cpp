#include "store/scripts.hpp"

#include <openssl/sha.h>

#include <array>
#include <string>

namespace simsync::store {

namespace detail {
// Defined in the generated lua_scripts.cpp.
extern const std::string_view lua_lib;
extern const std::string_view lua_register_line;
extern const std::string_view lua_upload;
extern const std::string_view lua_apply_incoming;
extern const std::string_view lua_update_request;
extern const std::string_view lua_fetch_pending;
extern const std::string_view lua_ack_pending;
extern const std::string_view lua_remove_line;
extern const std::string_view lua_claim_line;
extern const std::string_view lua_release_claim;
extern const std::string_view lua_restore;
extern const std::string_view lua_put_subscriber;
extern const std::string_view lua_delete_subscriber;
extern const std::string_view lua_issue_code;
extern const std::string_view lua_verify_code;
extern const std::string_view lua_reseal_hash;
extern const std::string_view lua_reseal_stream;
} // namespace detail

namespace {

struct compiled_script {
  std::string text; ///< lib.lua followed by the script
  std::string sha;  ///< its SHA1 in hex, as Redis names it
};

compiled_script compile(std::string_view body) {
  compiled_script out;
  out.text.reserve(detail::lua_lib.size() + body.size() + 1);
  out.text.append(detail::lua_lib);
  out.text += '\n';
  out.text.append(body);
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(out.text.data()), out.text.size(), digest);
  static constexpr char hex[] = "0123456789abcdef";
  for (unsigned char byte : digest) {
    out.sha += hex[byte >> 4];
    out.sha += hex[byte & 0xf];
  }
  return out;
}

const compiled_script& compiled(script which) {
  static const std::array<compiled_script, 16> all{
      compile(detail::lua_register_line),  compile(detail::lua_upload),
      compile(detail::lua_apply_incoming), compile(detail::lua_update_request),
      compile(detail::lua_fetch_pending),  compile(detail::lua_ack_pending),
      compile(detail::lua_remove_line),    compile(detail::lua_claim_line),
      compile(detail::lua_release_claim),  compile(detail::lua_restore),
      compile(detail::lua_put_subscriber), compile(detail::lua_delete_subscriber),
      compile(detail::lua_issue_code),     compile(detail::lua_verify_code),
      compile(detail::lua_reseal_hash),    compile(detail::lua_reseal_stream),
  };
  return all[static_cast<size_t>(which)];
}

struct script_code {
  std::string_view name;
  ec code;
};

constexpr script_code script_codes[] = {
    {"unknown_line", ec::unknown_line},
    {"bad_token", ec::bad_token},
    {"line_taken", ec::line_taken},
    {"stale_cursor", ec::stale_cursor},
    {"bad_batch", ec::invalid_request},
    {"bad_request", ec::invalid_request},
    {"beyond_history", ec::beyond_history},
    {"not_eligible", ec::not_eligible},
    {"too_many_codes", ec::too_many_codes},
    {"no_code", ec::no_code},
    {"code_expired", ec::code_expired},
    {"wrong_code", ec::wrong_code},
    {"too_many_attempts", ec::too_many_attempts},
};

caf::error error_of(std::string_view message) {
  constexpr std::string_view prefix = "SIMSYNC ";
  auto at = message.find(prefix);
  if (at != std::string_view::npos) {
    auto name = message.substr(at + prefix.size());
    for (const auto& known : script_codes) {
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

caf::expected<reply> run_script(redis_client& redis, script which,
                                const std::vector<std::string_view>& args) {
  const auto& code = compiled(which);
  command cmd;
  cmd.reserve(args.size() + 3);
  cmd.push_back("EVALSHA");
  cmd.push_back(code.sha);
  cmd.push_back("0");
  cmd.insert(cmd.end(), args.begin(), args.end());
  auto result = redis.call(cmd);
  if (!result)
    return result;
  auto view = result->view();
  if (view.is_error() && view.str().substr(0, 8) == "NOSCRIPT") {
    auto loaded = redis.call({"SCRIPT", "LOAD", code.text});
    if (!loaded)
      return loaded;
    if (loaded->view().is_error())
      return error_of(loaded->view().str());
    result = redis.call(cmd);
    if (!result)
      return result;
    view = result->view();
  }
  if (view.is_error())
    return error_of(view.str());
  return result;
}

} // namespace simsync::store
