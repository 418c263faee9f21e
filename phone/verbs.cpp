#include "phone/verbs.hpp"

#include "core/book.hpp"
#include "phone/book_file.hpp"
#include "phone/carrier_client.hpp"
#include "phone/cluster_lookup.hpp"
#include "phone/error.hpp"
#include "phone/file_io.hpp"

#include <cctype>
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
  auto configs = ctx.args.value("--configs");
  if (auto carrier = ctx.args.value("--carrier"); !carrier.empty() || !configs.empty())
    return gateway_from_cluster(carrier, configs);
  if (!state.gateway.empty())
    return state.gateway;
  return gateway_from_cluster("", "");
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

namespace {

/// "42 s", "3 min": how long a limit lasts, from a Retry-After.
std::string wait_text(int seconds) {
  if (seconds <= 0)
    return "a while";
  if (seconds < 120)
    return std::to_string(seconds) + " s";
  return std::to_string((seconds + 59) / 60) + " min";
}

/// What a refused registration step means to the person at the phone, in
/// one line; anything else keeps the carrier's own words.
phone_error registration_refused(const carrier_refusal& r, const std::string& msisdn,
                                 const std::string& iccid) {
  auto slug = r.slug();
  auto again = "phone register --msisdn " + msisdn +
               (iccid.empty() ? std::string(" --iccid ICCID") : " --iccid " + iccid);
  if (r.status == 403 && slug == "not-eligible")
    return failure("register refused (403 not-eligible): the carrier has no active "
                   "subscriber " +
                   msisdn + " with SIM " + iccid +
                   "; check the number and the ICCID, or ask your carrier");
  if (r.status == 403 && slug == "invalid-code") {
    if (r.problem.contains("attempts_left"))
      return failure("register refused (403 invalid-code): wrong code, " +
                     std::to_string(r.problem.value("attempts_left", 0)) +
                     " attempts left; try again: phone register --msisdn " + msisdn +
                     " --code CODE");
    return failure("register refused (403 invalid-code): no code is waiting for " +
                   msisdn + " (it was used, or never sent); ask for a new one: " + again);
  }
  if (r.status == 410)
    return failure("register refused (410 code-expired): the code has expired; ask for "
                   "a new one: " +
                   again);
  if (r.status == 429) {
    std::string what = slug == "too-many-attempts" ? "too many wrong codes"
                       : slug == "too-many-codes"  ? "too many codes sent to " + msisdn
                                                  : "too many requests from this address";
    return failure("register refused (429 " + (slug.empty() ? "too-many" : slug) +
                   "): " + what + "; try again in " + wait_text(r.retry_after_s));
  }
  if (r.status == 503 && slug == "sms-unavailable")
    return failure("register refused (503 sms-unavailable): the carrier cannot send the "
                   "code by SMS right now; try again later");
  return r;
}

} // namespace

void register_verb(phone_context& ctx) {
  auto msisdn = required(ctx, "--msisdn");
  auto code = ctx.args.value("--code");
  // With --code the carrier already texted it (an earlier phone register):
  // only the verification is left. Otherwise ask for a code and wait for it.
  auto iccid = code.empty() ? required(ctx, "--iccid") : ctx.args.value("--iccid");
  auto path = state_path(ctx.book_path);
  auto state = load_state(path);
  auto gateway = resolve_gateway(ctx, state);
  carrier_client carrier(gateway, "", "");
  nlohmann::json answer;
  try {
    if (code.empty()) {
      auto sent = carrier.request_code(msisdn, iccid);
      ctx.out << "code sent by SMS to " << msisdn << ": " << std::flush;
      std::getline(ctx.in, code);
      while (!code.empty() && std::isspace(static_cast<unsigned char>(code.back())))
        code.pop_back();
      if (code.empty()) {
        ctx.out << "\n";
        throw failure("no code entered; when the SMS arrives (valid " +
                      wait_text(sent.value("expires_in", 0)) +
                      "): phone register --msisdn " + msisdn + " --code CODE");
      }
    }
    answer = carrier.verify_code(msisdn, code);
  } catch (const carrier_refusal& r) {
    throw registration_refused(r, msisdn, iccid);
  }
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
  carrier_client carrier(gateway, state.msisdn, state.token);
  nlohmann::json answer;
  try {
    answer = carrier.upload(*book, private_scope);
  } catch (const mass_deletion_held& held) {
    // The carrier keeps a book from being emptied by accident: say what the
    // push would remove and go on only if the user (or --yes) confirms.
    auto what = "this push would remove " + std::to_string(held.would_remove) +
                " of the " + std::to_string(held.book_size) + " cards of your " +
                (private_scope ? "private backup" : "shared book") + " at " + gateway;
    if (!ctx.args.has("--yes")) {
      if (!ctx.interactive)
        throw failure(what + "; nothing was stored (pass --yes to remove them)");
      if (!confirm(ctx, what + ". Remove them?")) {
        ctx.out << "not pushed; nothing was stored\n";
        return;
      }
    }
    answer = carrier.upload(*book, private_scope, held.would_remove);
  }
  ctx.out << "pushed " << ctx.book_path << " (" << count_cards(*book) << " cards, "
          << (private_scope ? "private backup" : "shared") << ") to " << gateway << ": "
          << counts(answer) << ", " << answer.value("unchanged", 0) << " unchanged\n";
  const auto& rejected = answer.value("rejected", nlohmann::json::array());
  for (const auto& r : rejected)
    ctx.out << "  rejected card " << r.value("index", 0) << " (line "
            << r.value("line", 0) << "): " << r.value("reason", "") << "\n";
  const auto& conflicts = answer.value("conflicts", nlohmann::json::array());
  for (const auto& c : conflicts)
    ctx.out << "  kept " << c.value("uid", "") << ": "
            << (c.value("reason", "") == "not-held" ? "this phone never had it"
                                                    : "changed on another line since")
            << "; it comes back with the next pull\n";
  if (private_scope)
    return;
  // The carrier's base for this line is now this book; keep the same copy.
  state.base.clear();
  for (const auto& entry : core::prepare_book(*book).entries)
    state.base.emplace(entry.uid, entry.hash);
  save_state(path, state);
}

namespace {

/// phone restore --at TIME: the carrier brings the book back to an instant.
void restore_to_instant(phone_context& ctx, const phone_state& state,
                        const std::string& gateway) {
  auto at = ctx.args.value("--at");
  bool private_scope = ctx.args.has("--private");
  std::string which = private_scope ? "private backup" : "shared book";
  carrier_client carrier(gateway, state.msisdn, state.token);
  auto preview = carrier.restore(at, private_scope, true);
  ctx.out << "restoring the " << which << " to " << at << " would make "
          << counts(preview) << "\n";
  if (ctx.args.has("--preview"))
    return;
  if (preview.value("added", 0) + preview.value("changed", 0) +
          preview.value("removed", 0) ==
      0) {
    ctx.out << "nothing to restore\n";
    return;
  }
  if (!ctx.args.has("--yes")) {
    if (!ctx.interactive)
      throw usage_error("pass --yes to restore, or --preview to only look");
    if (!confirm(ctx, "restore the " + which + "?")) {
      ctx.out << "not restored\n";
      return;
    }
  }
  auto done = carrier.restore(at, private_scope, false);
  ctx.out << "restored the " << which << " at " << gateway << ": " << counts(done)
          << "\n";
  if (private_scope)
    return;
  // The carrier took the restored book as this line's upload: it holds it now.
  auto book = carrier.contacts(false);
  write_file_atomically(ctx.book_path, book);
  auto path = state_path(ctx.book_path);
  auto saved = load_state(path);
  saved.base.clear();
  for (const auto& entry : core::prepare_book(book).entries)
    saved.base.emplace(entry.uid, entry.hash);
  save_state(path, saved);
  ctx.out << "wrote " << count_cards(book) << " cards to " << ctx.book_path << "\n";
}

} // namespace

void history_verb(phone_context& ctx) {
  auto state = registered_state(ctx);
  auto gateway = resolve_gateway(ctx, state);
  int limit = 20;
  if (auto text = ctx.args.value("--limit"); !text.empty()) {
    limit = std::atoi(text.c_str());
    if (limit < 1 || limit > 1000)
      throw usage_error("--limit must be 1 to 1000");
  }
  auto page = carrier_client(gateway, state.msisdn, state.token)
                  .history(ctx.args.has("--private"), limit, ctx.args.value("--next"));
  const auto& changes = page.value("changes", nlohmann::json::array());
  if (changes.empty())
    ctx.out << "no changes\n";
  for (const auto& c : changes)
    ctx.out << c.value("at", "") << "  " << c.value("kind", "") << "  "
            << c.value("uid", "") << "  by " << c.value("line", "") << " at "
            << c.value("carrier", "") << "\n";
  if (page.contains("next"))
    ctx.out << "older changes: phone history --next " << page.value("next", "") << "\n";
}

void restore_verb(phone_context& ctx) {
  auto state = registered_state(ctx);
  auto gateway = resolve_gateway(ctx, state);
  if (!ctx.args.value("--at").empty())
    return restore_to_instant(ctx, state, gateway);
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
