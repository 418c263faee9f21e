#include "core/identity.hpp"
#include "core/line_id.hpp"
#include "logging/log.hpp"
#include "net/instant.hpp"
#include "net/one_time_code.hpp"
#include "net/request_fields.hpp"
#include "net/routes.hpp"
#include "net/token.hpp"

#include <algorithm>
#include <cctype>

// F1, registration in two steps: POST /v1/register sends a one-time code by
// SMS to an active subscriber's number (the carrier's registry, fed through
// the admin port, says whose SIM it is); POST /v1/register/verify takes the
// code back and issues the line's token. The phone never says who it is.

namespace simsync::net {

namespace {

/// A claim this old whose owner's account holds no such line was left by a
/// registration that stopped between its two steps (a crash, a timeout):
/// another person may then take the line. Far longer than a
/// registration takes, so one still on its way is never overtaken.
constexpr std::uint64_t orphan_claim_ms = 120'000;

/// F1's second step: the line at the account's shard.
void register_at_account(const exchange_ptr& ex, store::register_request req,
                         std::string token) {
  auto idcode = req.idcode;
  ex->ask(
      idcode,
      [ex, idcode, token = std::move(token)](const store::register_result& r) {
        ex->reply_json(r.account_created || r.line_added ? 201 : 200,
                       {{"token", token},
                        {"idcode", idcode},
                        {"account_created", r.account_created}});
      },
      atom::register_line_v, std::move(req));
}

/// F1's first step: one owner per line in the carrier. The claim lives at
/// the shard the line id routes to, whichever node holds the accounts, so two
/// people whose accounts live on two nodes cannot both register one msisdn.
/// The owner's claim is idempotent (a retry after a crash between the steps
/// works); another owner's old claim is taken over only once its account is
/// seen to hold no such line.
void claim_then_register(const exchange_ptr& ex, store::register_request req,
                         std::string token, std::string take_over_from) {
  auto shard = config::shard_of_line(req.line, ex->ctx().shard_count);
  auto line = req.line;
  auto idcode = req.idcode;
  auto now = req.now_ms;
  auto from = take_over_from;
  ex->ask_at(
      shard,
      [ex, req = std::move(req), token = std::move(token),
       from = std::move(take_over_from)](const store::claim_result& c) mutable {
        if (c.claimed)
          return register_at_account(ex, std::move(req), std::move(token));
        auto taken = caf::make_error(ec::line_taken, "the msisdn is another account's");
        // Only an idcode routes to a shard (config::shard_of throws otherwise).
        bool routable = c.owner.size() >= 8 &&
                        std::all_of(c.owner.begin(), c.owner.begin() + 8, [](char x) {
                          return std::isxdigit(static_cast<unsigned char>(x)) != 0;
                        });
        if (!from.empty() || !routable || req.now_ms < c.since_ms + orphan_claim_ms)
          return ex->fail(taken);
        auto line = req.line;
        ex->ask(
            c.owner,
            [ex, req = std::move(req), token = std::move(token), owner = c.owner,
             taken](const caf::optional<store::line_info>& line) mutable {
              if (line && line->idcode == owner)
                return ex->fail(taken);
              claim_then_register(ex, std::move(req), std::move(token), owner);
            },
            atom::find_line_v, std::move(line));
      },
      atom::claim_v, std::move(line), std::move(idcode), now, std::move(from));
}

std::uint64_t ms_of(std::chrono::seconds s) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(s).count());
}

/// Counts the request against its client address; false after answering 429.
bool within_address_limit(const exchange_ptr& ex, address_limiter& limiter) {
  auto address = ex->request().remote_endpoint().address().to_string();
  auto wait_ms = limiter.admit(address, std::chrono::steady_clock::now());
  if (wait_ms == 0)
    return true;
  ex->fail(too_many("too-many-requests", "Too many registration requests",
                    "this address sent too many registration requests; wait before "
                    "trying again",
                    wait_ms));
  return false;
}

/// Identity comes from the carrier's subscriber records, never from the
/// phone: a body that still names a person is refused (400) rather than
/// quietly ignored, so an old client learns why.
bool names_a_person(const exchange_ptr& ex, const nlohmann::json& body) {
  for (const char* field : {"name", "id_number"})
    if (body.contains(field)) {
      ex->fail(bad_field(field, "is not accepted: the carrier's subscriber records say "
                                "whose SIM this is"));
      return true;
    }
  return false;
}

/// The JSON body of a registration step, counted against the client's
/// address and naming no person; nullopt after answering 429, 415 or 400.
std::optional<nlohmann::json> registration_body(const exchange_ptr& ex,
                                                address_limiter& limiter) {
  if (!within_address_limit(ex, limiter))
    return std::nullopt;
  auto body = json_body(ex);
  if (!body || names_a_person(ex, *body))
    return std::nullopt;
  return body;
}

/// A valid msisdn field, or nullopt after answering 400.
std::optional<std::string> msisdn_field(const exchange_ptr& ex,
                                        const nlohmann::json& body) {
  auto msisdn = string_field(ex, body, "msisdn");
  if (!msisdn)
    return std::nullopt;
  if (auto check = core::validate_msisdn(*msisdn); !check.ok()) {
    ex->fail(bad_field("msisdn", check.reason));
    return std::nullopt;
  }
  return msisdn;
}

/// Sends the code by SMS (on a thread of its own: the gateway may be slow),
/// then answers 202, or 503 if the SMS gateway did not take it.
void send_code(const exchange_ptr& ex, const std::string& msisdn, const std::string& code,
               std::uint64_t expires_ms) {
  auto& ctx = ex->ctx();
  auto text = code_message(code, ctx.registration.code_ttl);
  auto limit = ctx.sms_time_limit;
  ex->run_blocking(
      [sms = ctx.sms, msisdn, text] { return sms->send(msisdn, text); }, limit,
      [ex, expires_ms](const std::string& error) {
        if (!error.empty()) {
          logging::warn("sms_refused", {{"reason", error}});
          return ex->fail(problem{503, "sms-unavailable", "The code could not be sent",
                                  "the carrier's SMS gateway did not take the message; "
                                  "retry shortly"});
        }
        auto now = core::unix_now_ms();
        auto left_ms = expires_ms > now ? expires_ms - now : 0;
        ex->reply_json(202, {{"status", "code-sent"},
                             {"sent_via", "sms"},
                             {"expires_at", rfc3339_of(expires_ms)},
                             {"expires_in", (left_ms + 500) / 1000}});
      });
}

} // namespace

void handle_register(const exchange_ptr& ex) {
  auto& ctx = ex->ctx();
  auto body = registration_body(ex, *ctx.register_limiter);
  if (!body)
    return;
  auto msisdn = msisdn_field(ex, *body);
  if (!msisdn)
    return;
  auto iccid = string_field(ex, *body, "iccid");
  if (!iccid)
    return;
  if (auto check = core::validate_iccid(*iccid); !check.ok())
    return ex->fail(bad_field("iccid", check.reason));
  if (!ctx.sms)
    return ex->fail(problem{503, "sms-unavailable", "Codes cannot be sent",
                            "this carrier has no SMS gateway configured"});
  auto code = new_code();
  const auto& limits = ctx.registration;
  auto keys = ctx.keys->current();
  store::code_request req{core::line_id_of(*keys, *msisdn),
                          core::iccid_hash_of(*keys, *iccid),
                          code_hash(keys->lookup_key(), *msisdn, code),
                          core::unix_now_ms(),
                          ms_of(limits.code_ttl),
                          ms_of(limits.code_window),
                          static_cast<std::uint64_t>(limits.codes_per_msisdn)};
  auto shard = config::shard_of_line(req.line, ctx.shard_count);
  // The SMS goes to the number the phone named; the store never needs it.
  ex->ask_at(
      shard,
      [ex, msisdn = *msisdn, code](std::uint64_t expires_ms) {
        send_code(ex, msisdn, code, expires_ms);
      },
      atom::issue_code_v, std::move(req));
}

void handle_verify(const exchange_ptr& ex) {
  auto& ctx = ex->ctx();
  auto body = registration_body(ex, *ctx.verify_limiter);
  if (!body)
    return;
  auto msisdn = msisdn_field(ex, *body);
  if (!msisdn)
    return;
  auto code = string_field(ex, *body, "code");
  if (!code)
    return;
  if (!is_code(*code))
    return ex->fail(bad_field("code", "must be the 6 digits sent by SMS"));
  auto keys = ctx.keys->current();
  // The continuation keeps its own copy of the line id: `check` is moved into
  // the request, in an order the language leaves open.
  auto line = core::line_id_of(*keys, *msisdn);
  store::code_check check{line, code_hash(keys->lookup_key(), *msisdn, *code),
                          core::unix_now_ms(),
                          static_cast<std::uint64_t>(ctx.registration.max_code_attempts)};
  ex->ask_at(
      config::shard_of_line(line, ctx.shard_count),
      [ex, keys, line, msisdn = *msisdn](const store::verified_subscriber& who) {
        auto token = issue_token(who.idcode);
        store::register_request req{who.idcode,           line,
                                    who.iccid_hash,       token.hash,
                                    who.sealed_user_info, core::unix_now_ms(),
                                    ex->ctx().peers,      keys->seal(msisdn, who.idcode)};
        claim_then_register(ex, std::move(req), token.token, "");
      },
      atom::verify_code_v, std::move(check));
}

} // namespace simsync::net
