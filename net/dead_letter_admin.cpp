#include "net/dead_letter_admin.hpp"

#include "core/stamp.hpp"
#include "net/admin_auth.hpp"
#include "net/instant.hpp"

#include <charconv>

namespace simsync::net {

namespace {

constexpr std::uint64_t default_limit = 100;
constexpr std::uint64_t most = 10'000;

problem unknown_letter() {
  return problem{404, "unknown-dead-letter", "No such dead letter",
                 "the peer has no dead letter with that id"};
}

} // namespace

void handle_list_dead_letters(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  std::uint64_t limit = default_limit;
  auto parsed =
      restinio::try_parse_query<restinio::parse_query_traits::javascript_compatible>(
          ex->request().header().query());
  if (!parsed)
    return ex->fail(problem{400, "invalid-query", "The query string is malformed",
                            parsed.error().description()});
  const auto& query = *parsed;
  if (query.has("limit")) {
    auto text = query["limit"];
    auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), limit);
    if (err != std::errc{} || end != text.data() + text.size() || limit < 1 ||
        limit > most)
      return ex->fail(bad_field("limit", "must be 1 to " + std::to_string(most)));
  }
  ex->ask_at(
      ex->ctx().dead_letter_shard,
      [ex](const std::vector<store::kept_letter>& kept) {
        auto letters = nlohmann::json::array();
        for (const auto& k : kept)
          letters.push_back({{"id", k.id},
                             {"entry", k.letter.entry.id},
                             {"idcode", k.letter.entry.idcode},
                             {"kind", store::kind_name(k.letter.entry.kind)},
                             {"batch_bytes", k.letter.entry.batch.size()},
                             {"reason", k.letter.reason},
                             {"at", rfc3339_of(k.at_ms)}});
        ex->reply_json(200, {{"peer", ex->param(0)}, {"letters", std::move(letters)}});
      },
      atom::dead_letter_v, ex->param(0), limit);
}

void handle_drop_dead_letter(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  ex->ask_at(
      ex->ctx().dead_letter_shard,
      [ex](bool dropped) {
        if (!dropped)
          return ex->fail(unknown_letter());
        ex->reply_json(200, {{"dropped", true}});
      },
      atom::drop_letter_v, ex->param(0), ex->param(1));
}

void handle_retry_dead_letter(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  auto peer = ex->param(0);
  auto id = ex->param(1);
  auto drop = [ex, peer, id] {
    ex->ask_at(
        ex->ctx().dead_letter_shard,
        [ex](bool) {
          ex->reply_json(200, {{"retried", true}, {"applied", true}});
        },
        atom::drop_letter_v, peer, id);
  };
  ex->ask_at(
      ex->ctx().dead_letter_shard,
      [ex, peer, drop](const std::vector<store::kept_letter>& found) {
        if (found.empty())
          return ex->fail(unknown_letter());
        auto entry = found.front().letter.entry;
        auto why = entry_refusal(entry, core::unix_now_ms(), ex->ctx().incoming);
        if (!why.empty())
          return ex->fail(problem{409, "still-refused",
                                  "The entry still fails its checks; it stays kept",
                                  why});
        // Applied by its account's shard as a delivery from the peer would
        // be (idempotent), then dropped: a failure in between leaves it
        // kept, and a retry applies it again harmlessly.
        auto idcode = entry.idcode;
        ex->ask(
            idcode, [drop](const store::replicate_result&) { drop(); }, atom::replicate_v,
            peer, std::vector<store::outbox_entry>{std::move(entry)});
      },
      atom::dead_letter_v, peer, id);
}

} // namespace simsync::net
