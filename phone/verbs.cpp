#include "phone/verbs.hpp"

#include "core/book.hpp"
#include "phone/book_file.hpp"
#include "phone/carrier_client.hpp"
#include "phone/cluster_lookup.hpp"
#include "phone/error.hpp"
#include "phone/file_io.hpp"

#include <istream>
#include <ostream>

namespace simsync::phone {

namespace {

std::string required(const phone_context& ctx, const std::string& name) {
  auto value = ctx.args.value(name);
  if (value.empty())
    throw usage_error(name + " is required");
  return value;
}

std::string counts(const nlohmann::json& answer) {
  return std::to_string(answer.value("added", 0)) + " added, " +
         std::to_string(answer.value("changed", 0)) + " changed, " +
         std::to_string(answer.value("removed", 0)) + " removed";
}

/// The idcode as people compare it: its first 12 hex digits.
std::string idcode_prefix(const std::string& idcode) {
  return idcode.substr(0, 12) + "…";
}

} // namespace

// -- shared -------------------------------------------------------------------

std::string resolve_gateway(const phone_context& ctx, const phone_state& state) {
  if (auto gateway = ctx.args.value("--gateway"); !gateway.empty())
    return gateway;
  if (auto carrier = ctx.args.value("--carrier"); !carrier.empty())
    return gateway_from_cluster(carrier);
  if (!state.gateway.empty())
    return state.gateway;
  return gateway_from_cluster("");
}

phone_state registered_state(const phone_context& ctx) {
  auto state = load_state(state_path(ctx.book_path));
  if (!state.registered())
    throw failure("this phone has no line yet: run phone register (book " +
                  ctx.book_path + ")");
  return state;
}

bool confirm(phone_context& ctx, const std::string& question) {
  ctx.out << question << " [y/N] " << std::flush;
  std::string answer;
  std::getline(ctx.in, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

// -- verbs --------------------------------------------------------------------

void register_verb(phone_context& ctx) {
  nlohmann::json request{{"msisdn", required(ctx, "--msisdn")},
                         {"iccid", required(ctx, "--iccid")},
                         {"name", required(ctx, "--name")},
                         {"id_number", required(ctx, "--id-number")}};
  auto path = state_path(ctx.book_path);
  auto state = load_state(path);
  auto gateway = resolve_gateway(ctx, state);
  auto answer = carrier_client(gateway, "", "").register_line(request);
  auto msisdn = request["msisdn"].get<std::string>();
  if (msisdn != state.msisdn || gateway != state.gateway) {
    // Another line: what the old one synced says nothing about this one.
    state.base.clear();
    state.cursor.clear();
  }
  state.gateway = gateway;
  state.msisdn = msisdn;
  state.token = answer.value("token", "");
  state.idcode = answer.value("idcode", "");
  if (state.token.empty())
    throw failure("register: the carrier at " + gateway + " answered without a token");
  save_state(path, state);
  ctx.out << "registered " << msisdn << " at " << gateway << ": "
          << (answer.value("account_created", false) ? "new account"
                                                     : "joined your existing account")
          << " (idcode " << idcode_prefix(state.idcode) << ")\n";
}

void push_verb(phone_context& ctx) {
  auto path = state_path(ctx.book_path);
  auto state = registered_state(ctx);
  auto book = read_file(ctx.book_path);
  if (!book)
    throw failure("no address book at " + ctx.book_path + " (see --book)");
  bool private_scope = ctx.args.has("--private");
  auto gateway = resolve_gateway(ctx, state);
  auto answer =
      carrier_client(gateway, state.msisdn, state.token).upload(*book, private_scope);
  ctx.out << "pushed " << ctx.book_path << " (" << count_cards(*book) << " cards, "
          << (private_scope ? "private backup" : "shared") << ") to " << gateway << ": "
          << counts(answer) << ", " << answer.value("unchanged", 0) << " unchanged\n";
  const auto& rejected = answer.value("rejected", nlohmann::json::array());
  for (const auto& r : rejected)
    ctx.out << "  rejected card " << r.value("index", 0) << " (line "
            << r.value("line", 0) << "): " << r.value("reason", "") << "\n";
  if (private_scope)
    return;
  // The carrier's base for this line is now this book; keep the same copy.
  state.base.clear();
  for (const auto& entry : core::prepare_book(*book).entries)
    state.base.emplace(entry.uid, entry.hash);
  save_state(path, state);
}

void restore_verb(phone_context& ctx) {
  auto state = registered_state(ctx);
  auto gateway = resolve_gateway(ctx, state);
  auto backup = carrier_client(gateway, state.msisdn, state.token).contacts(true);
  auto cards = count_cards(backup);
  if (cards == 0) {
    ctx.out << "the private backup at " << gateway << " is empty; " << ctx.book_path
            << " is unchanged\n";
    return;
  }
  auto current = read_file(ctx.book_path);
  auto held = current ? count_cards(*current) : 0;
  if (held > 0 && !ctx.args.has("--yes")) {
    auto question = "replace the " + std::to_string(held) + " cards of " + ctx.book_path +
                    " with the " + std::to_string(cards) +
                    " cards of the private backup?";
    if (!ctx.interactive)
      throw usage_error(ctx.book_path + " holds " + std::to_string(held) +
                        " cards; pass --yes to overwrite it with the backup");
    if (!confirm(ctx, question)) {
      ctx.out << "not restored; " << ctx.book_path << " is unchanged\n";
      return;
    }
  }
  write_file_atomically(ctx.book_path, backup);
  ctx.out << "restored " << cards << " cards from the private backup at " << gateway
          << " into " << ctx.book_path << "\n";
}

void status_verb(phone_context& ctx) {
  auto state = load_state(state_path(ctx.book_path));
  auto book = read_file(ctx.book_path);
  if (state.registered())
    ctx.out << "line     " << state.msisdn << " (idcode " << idcode_prefix(state.idcode)
            << ")\n";
  else
    ctx.out << "line     not registered (see phone register --help)\n";
  auto gateway = resolve_gateway(ctx, state);
  ctx.out << "carrier  " << gateway << "\n";
  if (!book) {
    ctx.out << "book     " << ctx.book_path << ": no such file\n";
  } else {
    auto prepared = core::prepare_book(*book);
    auto diff = core::diff_book(prepared.entries, state.base);
    ctx.out << "book     " << ctx.book_path << ": " << count_cards(*book) << " cards\n"
            << "local    " << diff.added.size() << " added, " << diff.changed.size()
            << " changed, " << diff.removed.size() << " removed since the last sync\n";
  }
  if (!state.registered())
    return;
  auto pending = carrier_client(gateway, state.msisdn, state.token).update();
  ctx.out << "pending  " << counts(pending) << " at the carrier\n";
}

} // namespace simsync::phone
