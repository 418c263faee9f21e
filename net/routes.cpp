#include "net/routes.hpp"

#include "core/identity.hpp"
#include "core/seal.hpp"
#include "net/auth.hpp"
#include "net/book_upload.hpp"
#include "net/token.hpp"
#include "net/vcard_output.hpp"

#include <cctype>
#include <chrono>

namespace simsync::net {

namespace {

// -- request parsing ----------------------------------------------------------

std::string media_type(const exchange& ex) {
  auto value = ex.request().header().get_field_or(restinio::http_field::content_type, "");
  auto type = value.substr(0, value.find(';'));
  while (!type.empty() && std::isspace(static_cast<unsigned char>(type.back())))
    type.pop_back();
  for (auto& c : type)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return type;
}

/// The query parameters, or nullopt after answering 400.
std::optional<restinio::query_string_params_t> query_of(const exchange_ptr& ex) {
  auto parsed =
      restinio::try_parse_query<restinio::parse_query_traits::javascript_compatible>(
          ex->request().header().query());
  if (!parsed) {
    ex->fail(problem{400, "invalid-query", "The query string is malformed",
                     parsed.error().description()});
    return std::nullopt;
  }
  return std::move(*parsed);
}

std::optional<std::string_view> query_value(const restinio::query_string_params_t& q,
                                            std::string_view name) {
  if (!q.has(name))
    return std::nullopt;
  auto v = q[name];
  return std::string_view(v.data(), v.size());
}

/// ?scope=shared|private (default shared), or nullopt after answering 400.
std::optional<store::scope> scope_of(const exchange_ptr& ex,
                                     const restinio::query_string_params_t& q) {
  auto value = query_value(q, "scope");
  if (!value || *value == "shared")
    return store::scope::shared;
  if (*value == "private")
    return store::scope::private_backup;
  ex->fail(bad_field("scope", "must be shared or private"));
  return std::nullopt;
}

/// The request's ?scope=, or nullopt after answering 400.
std::optional<store::scope> requested_scope(const exchange_ptr& ex) {
  auto query = query_of(ex);
  if (!query)
    return std::nullopt;
  return scope_of(ex, *query);
}

/// The vCard version asked for, or false after answering 400.
bool version_of(const exchange_ptr& ex, const restinio::query_string_params_t& q,
                std::optional<core::vcard_version>& out) {
  auto choice = requested_version(
      query_value(q, "version"),
      ex->request().header().get_field_or(restinio::http_field::accept, ""));
  if (!choice.error.empty()) {
    ex->fail(bad_field("version", choice.error));
    return false;
  }
  out = choice.version;
  return true;
}

/// A JSON object body, or nullopt after answering 415 or 400. A JSON body
/// may come without a Content-Type; with one, it must be JSON.
std::optional<nlohmann::json> json_body(const exchange_ptr& ex) {
  auto type = media_type(*ex);
  if (!type.empty() && type != "application/json" &&
      (type.size() < 5 || type.compare(type.size() - 5, 5, "+json") != 0)) {
    ex->fail(problem{415, "unsupported-media-type", "The body must be JSON",
                     "Content-Type " + type + " is not application/json"});
    return std::nullopt;
  }
  auto body = nlohmann::json::parse(ex->body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    ex->fail(problem{400, "malformed-json", "The body is not a JSON object",
                     "the request body must be a JSON object"});
    return std::nullopt;
  }
  return body;
}

/// A string member, or nullopt after answering 400 naming it.
std::optional<std::string> string_field(const exchange_ptr& ex,
                                        const nlohmann::json& body,
                                        const std::string& name) {
  auto it = body.find(name);
  if (it == body.end()) {
    ex->fail(bad_field(name, "missing"));
    return std::nullopt;
  }
  if (!it->is_string()) {
    ex->fail(bad_field(name, "must be a string"));
    return std::nullopt;
  }
  return it->get<std::string>();
}

/// An ICCID (ITU-T E.118): 18 to 22 digits, starting with the telecom prefix 89.
bool plausible_iccid(const std::string& iccid) {
  if (iccid.size() < 18 || iccid.size() > 22 || iccid.compare(0, 2, "89") != 0)
    return false;
  for (char c : iccid)
    if (c < '0' || c > '9')
      return false;
  return true;
}

nlohmann::json upload_json(const store::upload_result& r,
                           const std::vector<core::card_error>& rejected,
                           nlohmann::json assigned_uids = nlohmann::json::object()) {
  return {{"version", r.version},
          {"added", r.added},
          {"changed", r.changed},
          {"removed", r.removed},
          {"unchanged", r.unchanged},
          {"rejected", card_errors_json(rejected)},
          {"assigned_uids", std::move(assigned_uids)}};
}

/// ?empty=true (false when absent), or nullopt after answering 400.
std::optional<bool> empty_flag(const exchange_ptr& ex,
                               const restinio::query_string_params_t& q,
                               store::upload_mode mode) {
  auto value = query_value(q, "empty");
  if (!value || *value == "false")
    return false;
  if (*value != "true") {
    ex->fail(bad_field("empty", "must be true or false"));
    return std::nullopt;
  }
  if (mode != store::upload_mode::snapshot) {
    ex->fail(bad_field("empty", "empties a book only with PUT (a snapshot)"));
    return std::nullopt;
  }
  return true;
}

nlohmann::json counts_json(const store::pending_counts& c) {
  return {{"added", c.added}, {"changed", c.changed}, {"removed", c.removed}};
}

} // namespace

// -- F1 -----------------------------------------------------------------------

void handle_register(const exchange_ptr& ex) {
  auto body = json_body(ex);
  if (!body)
    return;
  auto msisdn = string_field(ex, *body, "msisdn");
  if (!msisdn)
    return;
  if (auto check = core::validate_msisdn(*msisdn); !check.ok())
    return ex->fail(bad_field("msisdn", check.reason));
  auto iccid = string_field(ex, *body, "iccid");
  if (!iccid)
    return;
  if (!plausible_iccid(*iccid))
    return ex->fail(bad_field("iccid", "must be 18 to 22 digits starting with 89"));
  auto name = string_field(ex, *body, "name");
  if (!name)
    return;
  auto id_number = string_field(ex, *body, "id_number");
  if (!id_number)
    return;
  auto user = core::normalize_user_info(*name, *id_number);
  if (!user.info) {
    // normalize_user_info names no field; an empty or non-UTF-8 field is one of the two.
    auto field = core::normalize_user_info(*name, "X").info ? "id_number" : "name";
    return ex->fail(bad_field(field, user.error));
  }
  if (auto check = core::validate_id_number(user.info->id_number); !check.ok())
    return ex->fail(bad_field("id_number", check.reason));

  auto& ctx = ex->ctx();
  auto idcode = core::idcode(ctx.federation_key, *user.info);
  nlohmann::json info{{"name", user.info->name}, {"id_number", user.info->id_number}};
  auto token = issue_token(idcode);
  store::register_request req{idcode,
                              *msisdn,
                              *iccid,
                              token.hash,
                              core::seal(ctx.seal_key, info.dump(), idcode),
                              core::unix_now_ms(),
                              ctx.peers};
  ex->ask(
      idcode,
      [ex, idcode, token = token.token](const store::register_result& r) {
        ex->reply_json(r.account_created || r.line_added ? 201 : 200,
                       {{"token", token},
                        {"idcode", idcode},
                        {"account_created", r.account_created}});
      },
      atom::register_line_v, std::move(req));
}

// -- F2, F7 -------------------------------------------------------------------

void handle_upload(const exchange_ptr& ex, store::upload_mode mode) {
  auto query = query_of(ex);
  if (!query)
    return;
  auto scope = scope_of(ex, *query);
  if (!scope)
    return;
  auto empty = empty_flag(ex, *query, mode);
  if (!empty)
    return;
  auto type = media_type(*ex);
  if (type != "text/vcard" && type != "text/x-vcard" && type != "text/directory")
    return ex->fail(problem{415, "unsupported-media-type", "The body must be vCard",
                            "Content-Type " + (type.empty() ? "(none)" : type) +
                                " is not text/vcard"});
  const auto& limits = ex->ctx().limits;
  if (ex->body().size() > limits.max_body_bytes)
    return ex->fail(problem{413, "body-too-large", "The body is too large",
                            std::to_string(ex->body().size()) + " bytes; at most " +
                                std::to_string(limits.max_body_bytes)});
  authorize(ex, ex->param(0),
            [ex, mode, scope = *scope, empty = *empty](const std::string& idcode) {
              auto book = check_book(ex->body(), ex->ctx().limits, empty);
              if (book.error)
                return ex->fail(*book.error);
              auto assigned = assigned_uids_json(book.entries);
              store::upload_request req;
              req.idcode = idcode;
              req.line = ex->param(0);
              req.scope = scope;
              req.mode = mode;
              req.cards = std::move(book.entries);
              req.allow_removals = book.rejected.empty();
              req.now_ms = core::unix_now_ms();
              ex->ask(
                  idcode,
                  [ex, rejected = std::move(book.rejected),
                   assigned = std::move(assigned)](const store::upload_result& r) {
                    ex->reply_json(200, upload_json(r, rejected, assigned));
                  },
                  atom::upload_v, std::move(req));
            });
}

void handle_delete_card(const exchange_ptr& ex) {
  auto scope = requested_scope(ex);
  if (!scope)
    return;
  authorize(ex, ex->param(0), [ex, scope = *scope](const std::string& idcode) {
    store::upload_request req;
    req.idcode = idcode;
    req.line = ex->param(0);
    req.scope = scope;
    req.mode = store::upload_mode::remove;
    req.uids = {ex->param(1)};
    req.now_ms = core::unix_now_ms();
    ex->ask(
        idcode,
        [ex](const store::upload_result& r) { ex->reply_json(200, upload_json(r, {})); },
        atom::upload_v, std::move(req));
  });
}

void handle_read_contacts(const exchange_ptr& ex) {
  auto query = query_of(ex);
  if (!query)
    return;
  auto scope = scope_of(ex, *query);
  if (!scope)
    return;
  std::optional<core::vcard_version> version;
  if (!version_of(ex, *query, version))
    return;
  authorize(ex, ex->param(0), [ex, scope = *scope, version](const std::string& idcode) {
    ex->ask(
        idcode,
        [ex, version](const std::vector<store::stored_card>& cards) {
          std::string body;
          for (const auto& c : cards)
            if (!c.record.deleted)
              body += render_card(c.record.card, version, c.uid);
          ex->reply(200, "text/vcard; charset=utf-8", std::move(body));
        },
        atom::read_cards_v, idcode, ex->param(0), scope);
  });
}

// -- F5, F6 -------------------------------------------------------------------

void handle_update(const exchange_ptr& ex) {
  authorize(ex, ex->param(0), [ex](const std::string& idcode) {
    ex->ask(
        idcode,
        [ex](const store::pending_counts& c) { ex->reply_json(200, counts_json(c)); },
        atom::update_v, idcode, ex->param(0));
  });
}

void handle_pending(const exchange_ptr& ex) {
  auto query = query_of(ex);
  if (!query)
    return;
  std::optional<core::vcard_version> version;
  if (!version_of(ex, *query, version))
    return;
  authorize(ex, ex->param(0), [ex, version](const std::string& idcode) {
    ex->ask(
        idcode,
        [ex, version](const store::pending_fetch& fetch) {
          std::string cards;
          auto removed = nlohmann::json::array();
          for (const auto& change : fetch.changes) {
            if (change.kind == store::change_kind::removed)
              removed.push_back(change.uid);
            else
              cards += render_card(change.record.card, version, change.uid);
          }
          auto answer = counts_json(fetch.counts);
          answer["cursor"] = fetch.cursor;
          answer["cards"] = std::move(cards);
          answer["removed_uids"] = std::move(removed);
          ex->reply_json(200, answer);
        },
        atom::fetch_v, idcode, ex->param(0));
  });
}

void handle_ack(const exchange_ptr& ex) {
  auto body = json_body(ex);
  if (!body)
    return;
  auto cursor = string_field(ex, *body, "cursor");
  if (!cursor)
    return;
  auto decision = string_field(ex, *body, "decision");
  if (!decision)
    return;
  if (*decision != "apply" && *decision != "discard")
    return ex->fail(bad_field("decision", "must be apply or discard"));
  auto what = *decision == "apply" ? store::decision::apply : store::decision::discard;
  authorize(ex, ex->param(0), [ex, cursor = *cursor, what](const std::string& idcode) {
    ex->ask(
        idcode,
        [ex](std::uint64_t done) {
          ex->reply_json(200, {{"acknowledged", done}});
        },
        atom::ack_v, idcode, ex->param(0), cursor, what);
  });
}

void handle_delete_line(const exchange_ptr& ex) {
  authorize(ex, ex->param(0), [ex](const std::string& idcode) {
    ex->ask(
        idcode,
        [ex](bool account_removed) {
          ex->reply_json(200,
                         {{"line_removed", true}, {"account_removed", account_removed}});
        },
        atom::remove_line_v, idcode, ex->param(0));
  });
}

} // namespace simsync::net
