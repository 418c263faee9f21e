#pragma once
// The verbs of tools/phone. Each throws phone_error to end with a message.

#include "phone/cli.hpp"
#include "phone/state.hpp"

#include <iosfwd>
#include <string>

namespace simsync::phone {

/// What a verb works with: its options, the book file, and the user.
struct phone_context {
  arguments args;
  std::string book_path;
  std::istream& in;
  std::ostream& out;
  bool interactive; ///< questions may be asked on `in`
};

void register_verb(phone_context& ctx);
void push_verb(phone_context& ctx);
void pull_verb(phone_context& ctx);
void restore_verb(phone_context& ctx);
void history_verb(phone_context& ctx);
void status_verb(phone_context& ctx);

// -- shared by the verbs ------------------------------------------------------

/// --gateway, else --carrier's gateway in the local deployment, else the
/// state's gateway, else the local deployment's first carrier.
std::string resolve_gateway(const phone_context& ctx, const phone_state& state);

/// The state of a registered line; throws if the phone has not registered.
phone_state registered_state(const phone_context& ctx);

/// Asks a yes/no question; only a "y" or "yes" answer is a yes.
bool confirm(phone_context& ctx, const std::string& question);

} // namespace simsync::phone
