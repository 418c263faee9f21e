#include "net/routes.hpp"

#include "core/identity.hpp"
#include "core/keyring.hpp"
#include "core/seal.hpp"
#include "net/auth.hpp"
#include "net/book_upload.hpp"
#include "net/instant.hpp"
#include "net/line_retirement.hpp"
#include "net/pending_query.hpp"
#include "net/request_fields.hpp"
#include "net/token.hpp"
#include "net/vcard_output.hpp"
#include "store/upload_parts.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <limits>
#include <map>

namespace simsync::net {

namespace {

// -- request parsing ----------------------------------------------------------

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

/// A request's query string and its ?scope=.
struct scoped_query {
  restinio::query_string_params_t query;
  store::scope scope;
};

/// The request's query and ?scope=, or nullopt after answering 400.
std::optional<scoped_query> scoped_query_of(const exchange_ptr& ex) {
  auto query = query_of(ex);
  if (!query)
    return std::nullopt;
  auto scope = scope_of(ex, *query);
  if (!scope)
    return std::nullopt;
  return scoped_query{std::move(*query), *scope};
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

/// A history page's next: "<ms>-<seq>.<n>" (a stream entry's id, and how
/// many of its changes were listed).
bool history_next(std::string_view text) {
  if (text.size() > 60)
    return false;
  int part = 0;       // 0: ms, 1: seq, 2: n
  bool digit = false; // the current part has a digit
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (digit && ((part == 0 && c == '-') || (part == 1 && c == '.'))) {
      ++part;
      digit = false;
    } else {
      return false;
    }
  }
  return part == 2 && digit;
}

nlohmann::json upload_json(const store::upload_result& r,
                           const std::vector<core::card_error>& rejected,
                           nlohmann::json assigned_uids = nlohmann::json::object()) {
  // Field by field: an initializer list of pairs builds each pair as an array
  // first, which was 7% of a node's allocations per interactive edit.
  nlohmann::json out;
  out["version"] = r.version;
  out["added"] = r.added;
  out["changed"] = r.changed;
  out["removed"] = r.removed;
  out["unchanged"] = r.unchanged;
  out["rejected"] = card_errors_json(rejected);
  auto& conflicts = out["conflicts"] = nlohmann::json::array();
  for (const auto& c : r.conflicts) {
    auto& conflict = conflicts.emplace_back();
    conflict["uid"] = c.uid;
    conflict["reason"] = c.reason;
  }
  out["assigned_uids"] = std::move(assigned_uids);
  return out;
}

/// The answer to an upload: 409 when the mass-deletion guard held it.
void answer_upload(const exchange_ptr& ex, const store::upload_result& r,
                   const std::vector<core::card_error>& rejected,
                   nlohmann::json assigned_uids = nlohmann::json::object()) {
  if (!r.held_for_confirmation())
    return ex->reply_json(200, upload_json(r, rejected, std::move(assigned_uids)));
  problem p{409, "mass-deletion", "The upload would remove much of the book",
            "it would remove " + std::to_string(r.would_remove) + " of the " +
                std::to_string(r.book_size) +
                " cards; nothing was stored. Send it again with ?confirm_removals=" +
                std::to_string(r.would_remove) + " to remove them"};
  p.extra["would_remove"] = r.would_remove;
  p.extra["book_size"] = r.book_size;
  ex->fail(p);
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

/// The msisdns of the page's lines of this account here (line id -> msisdn),
/// opened from what registration sealed to the idcode. Any other line (at a
/// sibling carrier, or retired) is shown by its line id: its number never
/// left its carrier, or is no longer kept.
std::map<std::string, std::string> opened_msisdns(const core::keyring& keys,
                                                  const store::history_page& page,
                                                  const std::string& idcode) {
  std::map<std::string, std::string> out;
  for (const auto& [line, sealed] : page.sealed_msisdns)
    if (auto msisdn = keys.open(sealed, idcode))
      out.emplace(line, std::move(*msisdn));
  return out;
}

nlohmann::json counts_json(const store::pending_counts& c) {
  return {{"added", c.added}, {"changed", c.changed}, {"removed", c.removed}};
}

/// The page size of a fetch a phone asks for whole (no `limit`): the store is
/// asked a page at a time, so that no one Redis call holds that Redis, and
/// every other line it serves, for the whole mailbox (half a second for
/// 50,000 cards in one call). The answer is the same.
constexpr std::uint32_t whole_fetch_page = 1000;

/// A GET /pending answer, put together page by page: each page's cards are
/// rendered as it comes, so the records are not all held at once.
struct pending_answer {
  std::optional<core::vcard_version> version;
  std::string version_name;
  /// The first page's: the counts and the mailbox tag of the fetch's
  /// snapshot. A later page's tag may be newer than what the fetch delivers.
  nlohmann::json head;
  std::string tag;
  std::string cards;
  nlohmann::json removed = nlohmann::json::array();

  void add(const store::pending_fetch& page) {
    if (head.is_null()) {
      head = counts_json(page.counts);
      head["cursor"] = page.cursor;
      tag = page.tag;
    }
    for (const auto& change : page.changes) {
      if (change.kind == store::change_kind::removed)
        removed.push_back(change.uid);
      else
        cards += render_card(change.record.card, version, change.uid);
    }
  }

  void send(const exchange_ptr& ex, const std::string& next) {
    auto body = std::move(head);
    body["cards"] = std::move(cards);
    body["removed_uids"] = std::move(removed);
    if (!next.empty())
      body["next"] = next;
    ex->reply(200, "application/json",
              body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
              {{"ETag", pending_etag(tag, version_name)}});
  }
};

/// Asks the store for `ask`'s page, then, for a `whole` fetch, for each
/// following page until the last; answers with what they delivered.
void fetch_pages(const exchange_ptr& ex, store::pending_request ask, bool whole,
                 std::shared_ptr<pending_answer> answer) {
  auto idcode = ask.idcode;
  auto request = ask;
  ex->ask(
      idcode,
      [ex, ask = std::move(ask), whole,
       answer = std::move(answer)](const store::pending_fetch& page) mutable {
        if (page.not_modified)
          return ex->reply(304, "application/json", "",
                           {{"ETag", pending_etag(page.tag, answer->version_name)}});
        answer->add(page);
        if (!whole || page.next.empty())
          return answer->send(ex, page.next);
        ask.next = page.next;
        ask.known_tag.clear();
        fetch_pages(ex, std::move(ask), whole, std::move(answer));
      },
      atom::fetch_v, std::move(request));
}

/// An upload on its way to the store in parts (store::upload_plan), and
/// what its answer needs.
struct upload_in_parts {
  std::string idcode;
  store::upload_plan plan;
  bool over = false; ///< answered (the sum, a hold or an error)
  std::vector<core::card_error> rejected;
  nlohmann::json assigned;
};

/// Deltas asked of the store before the ones before them are answered: the
/// store works on one while the gateway seals the next.
constexpr std::size_t parts_ahead = 2;

/// Asks the store for each part the plan lets go now. A part that fails
/// answers with its error; parts already asked for are stored all the same.
void send_parts(const exchange_ptr& ex, const std::shared_ptr<upload_in_parts>& upload) {
  while (auto part = upload->plan.next(parts_ahead))
    ex->ask_or(
        upload->idcode,
        [ex, upload](const store::upload_result& r) {
          if (upload->over)
            return;
          upload->plan.answered(r);
          if (!upload->plan.finished())
            return send_parts(ex, upload);
          upload->over = true;
          answer_upload(ex, upload->plan.sum(), upload->rejected,
                        std::move(upload->assigned));
        },
        [ex, upload](caf::error& err) {
          if (upload->over)
            return;
          upload->over = true;
          ex->fail(err);
        },
        atom::upload_v, std::move(*part));
}

/// The uids of a paged fetch's list one ack step takes: the store is asked
/// for an ack a step at a time, so that no one Redis call holds that Redis
/// for the whole book (150 ms for 50,000 changes in one call). The answer is
/// the same.
constexpr std::uint32_t ack_step_uids = 2000;

/// Asks the store for the ack's next step, and so on until the last;
/// answers with the changes they acknowledged. An error after the first
/// step leaves the steps before it done: the same ack sent again completes
/// it.
void ack_steps(const exchange_ptr& ex, const line_access& who, const std::string& cursor,
               store::decision what, std::uint64_t acknowledged) {
  ex->ask(
      who.idcode,
      [ex, who, cursor, what, acknowledged](const store::ack_progress& step) {
        if (step.finished)
          return ex->reply_json(200,
                                {{"acknowledged", acknowledged + step.acknowledged}});
        ack_steps(ex, who, cursor, what, acknowledged + step.acknowledged);
      },
      atom::ack_v, who.idcode, who.line, who.proof, cursor, what, ack_step_uids);
}

} // namespace

// -- F2, F7 -------------------------------------------------------------------

void handle_upload(const exchange_ptr& ex, store::upload_mode mode) {
  auto scoped = scoped_query_of(ex);
  if (!scoped)
    return;
  const auto& query = scoped->query;
  const auto scope = scoped->scope;
  auto confirmed = count_param(ex, query, "confirm_removals", 0, 0, 1'000'000'000);
  if (!confirmed)
    return;
  auto empty = empty_flag(ex, query, mode);
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
  authorize(ex, [ex, mode, scope, confirmed = *confirmed,
                 empty = *empty](const line_access& who) {
    // Refused before the book is read: under overload, reading books only to
    // refuse them took the CPU that replication needed to catch up.
    if (scope == store::scope::shared)
      if (auto refusal = ex->shared_write_refusal(who.idcode))
        return ex->fail(refusal);
    auto book = check_book(ex->body(), ex->ctx().limits, empty);
    if (book.error)
      return ex->fail(*book.error);
    auto assigned = assigned_uids_json(book.entries);
    store::upload_request req;
    req.idcode = who.idcode;
    req.line = who.line;
    req.token_hash = who.proof;
    req.scope = scope;
    req.mode = mode;
    req.cards = std::move(book.entries);
    req.allow_removals = book.rejected.empty();
    req.now_ms = core::unix_now_ms();
    req.guard = ex->ctx().mass_deletion;
    // Emptying a book on purpose confirms its removals.
    req.confirm_removals = empty ? std::numeric_limits<std::uint64_t>::max() : confirmed;
    auto upload = std::make_shared<upload_in_parts>(
        upload_in_parts{who.idcode, store::upload_plan(std::move(req)), false,
                        std::move(book.rejected), std::move(assigned)});
    send_parts(ex, upload);
  });
}

void handle_delete_card(const exchange_ptr& ex) {
  auto scoped = scoped_query_of(ex);
  if (!scoped)
    return;
  authorize(ex, [ex, scope = scoped->scope](const line_access& who) {
    store::upload_request req;
    req.idcode = who.idcode;
    req.line = who.line;
    req.token_hash = who.proof;
    req.scope = scope;
    req.mode = store::upload_mode::remove;
    req.uids = {ex->param(1)};
    req.now_ms = core::unix_now_ms();
    ex->ask(
        who.idcode, [ex](const store::upload_result& r) { answer_upload(ex, r, {}); },
        atom::upload_v, std::move(req));
  });
}

void handle_read_contacts(const exchange_ptr& ex) {
  auto scoped = scoped_query_of(ex);
  if (!scoped)
    return;
  const auto& query = scoped->query;
  const auto scope = scoped->scope;
  std::optional<core::vcard_version> version;
  if (!version_of(ex, query, version))
    return;
  authorize(ex, [ex, scope, version](const line_access& who) {
    ex->ask(
        who.idcode,
        [ex, version](const std::vector<store::stored_card>& cards) {
          std::string body;
          for (const auto& c : cards)
            if (!c.record.deleted)
              body += render_card(c.record.card, version, c.uid);
          ex->reply(200, "text/vcard; charset=utf-8", std::move(body));
        },
        atom::read_cards_v, who.idcode, who.line, who.proof, scope);
  });
}

// -- F5, F6 -------------------------------------------------------------------

void handle_update(const exchange_ptr& ex) {
  authorize(ex, [ex](const line_access& who) {
    ex->ask(
        who.idcode,
        [ex](const store::pending_counts& c) { ex->reply_json(200, counts_json(c)); },
        atom::update_v, who.idcode, who.line, who.proof);
  });
}

void handle_pending(const exchange_ptr& ex) {
  auto query = query_of(ex);
  if (!query)
    return;
  std::optional<core::vcard_version> version;
  if (!version_of(ex, *query, version))
    return;
  store::pending_request req;
  // Absent: everything the mailbox holds, in one answer.
  auto limit = count_param(ex, *query, "limit", 0, 1, max_pending_page);
  if (!limit)
    return;
  req.limit = static_cast<std::uint32_t>(*limit);
  if (auto next = query_value(*query, "next")) {
    if (!plausible_next(*next))
      return ex->fail(bad_field("next", "must be the next of the previous page"));
    req.next = std::string(*next);
  }
  std::string version_name = !version                                ? "orig"
                             : *version == core::vcard_version::v3_0 ? "3.0"
                                                                     : "4.0";
  // A following page is part of a fetch already under way: only a fetch's
  // first page can be answered "not modified".
  if (req.next.empty()) {
    auto header =
        ex->request().header().opt_value_of(restinio::http_field::if_none_match);
    if (header)
      req.known_tag = known_mailbox_tag(std::string_view(header->data(), header->size()),
                                        version_name);
  }
  authorize(ex,
            [ex, version, version_name, req = std::move(req)](const line_access& who) {
              auto ask = req;
              ask.idcode = who.idcode;
              ask.line = who.line;
              ask.token_hash = who.proof;
              bool whole = ask.limit == 0;
              if (whole)
                ask.limit = whole_fetch_page;
              auto answer = std::make_shared<pending_answer>();
              answer->version = version;
              answer->version_name = version_name;
              fetch_pages(ex, std::move(ask), whole, std::move(answer));
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
  authorize(ex, [ex, cursor = *cursor, what](const line_access& who) {
    ack_steps(ex, who, cursor, what, 0);
  });
}

// -- history and restore ------------------------------------------------------

void handle_history(const exchange_ptr& ex) {
  auto scoped = scoped_query_of(ex);
  if (!scoped)
    return;
  const auto& query = scoped->query;
  const auto scope = scoped->scope;
  auto limit = count_param(ex, query, "limit", 100, 1, 1000);
  if (!limit)
    return;
  std::string before{query_value(query, "next").value_or("")};
  if (!before.empty() && !history_next(before))
    return ex->fail(bad_field("next", "is not a value an earlier page gave"));
  authorize(ex, [ex, scope, limit = *limit, before](const line_access& who) {
    ex->ask(
        who.idcode,
        [ex, idcode = who.idcode](const store::history_page& page) {
          auto numbers = opened_msisdns(*ex->ctx().keys->current(), page, idcode);
          auto changes = nlohmann::json::array();
          for (const auto& c : page.changes) {
            auto number = numbers.find(c.line);
            changes.push_back(
                {{"uid", c.uid},
                 {"at", rfc3339_of(c.at_ms)},
                 {"kind", c.kind},
                 {"carrier", c.carrier},
                 {"line", number == numbers.end() ? c.line : number->second}});
          }
          nlohmann::json answer{{"changes", std::move(changes)}};
          if (!page.next.empty())
            answer["next"] = page.next;
          ex->reply_json(200, answer);
        },
        atom::history_v, who.idcode, who.line, who.proof, scope, before, limit);
  });
}

void handle_restore(const exchange_ptr& ex) {
  auto body = json_body(ex);
  if (!body)
    return;
  auto at_text = string_field(ex, *body, "at");
  if (!at_text)
    return;
  auto at = unix_ms_of(*at_text);
  if (!at)
    return ex->fail(bad_field("at", "must be an RFC 3339 date-time, such as "
                                    "2026-12-01T09:30:00Z"));
  auto now = core::unix_now_ms();
  if (*at > now)
    return ex->fail(bad_field("at", "lies in the future"));
  auto scope_text = body->value("scope", nlohmann::json("shared"));
  if (!scope_text.is_string() || (scope_text != "shared" && scope_text != "private"))
    return ex->fail(bad_field("scope", "must be shared or private"));
  auto preview = body->value("preview", nlohmann::json(false));
  if (!preview.is_boolean())
    return ex->fail(bad_field("preview", "must be true or false"));
  store::restore_request req;
  req.scope =
      scope_text == "shared" ? store::scope::shared : store::scope::private_backup;
  req.at_ms = *at;
  req.preview = preview.get<bool>();
  req.now_ms = now;
  authorize(ex, [ex, req](const line_access& who) mutable {
    req.idcode = who.idcode;
    req.line = who.line;
    req.token_hash = who.proof;
    ex->ask(
        who.idcode,
        [ex, preview = req.preview](const store::upload_result& r) {
          auto answer = upload_json(r, {});
          answer["preview"] = preview;
          ex->reply_json(200, answer);
        },
        atom::restore_v, std::move(req));
  });
}

void handle_delete_line(const exchange_ptr& ex) {
  authorize(ex, [ex](const line_access& who) {
    retire_line(ex, who.line, who.idcode, who.proof, [ex](bool, bool account_removed) {
      ex->reply_json(200, {{"line_removed", true}, {"account_removed", account_removed}});
    });
  });
}

} // namespace simsync::net
