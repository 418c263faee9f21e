#include "net/dead_letter_admin.hpp"

#include "core/stamp.hpp"
#include "net/admin_auth.hpp"
#include "net/instant.hpp"
#include "net/kept_stream_admin.hpp"

namespace simsync::net {

namespace {

problem unknown_letter() {
  return problem{404, "unknown-dead-letter", "No such dead letter",
                 "the peer has no dead letter with that id"};
}

} // namespace

void handle_list_dead_letters(const exchange_ptr& ex) {
  handle_list_kept<store::kept_letter>(
      ex, atom::dead_letter_v, "letters", [](const store::kept_letter& k) {
        return nlohmann::json{{"id", k.id},
                              {"entry", k.letter.entry.id},
                              {"idcode", k.letter.entry.idcode},
                              {"kind", store::kind_name(k.letter.entry.kind)},
                              {"batch_bytes", k.letter.entry.batch.size()},
                              {"reason", k.letter.reason},
                              {"at", rfc3339_of(k.at_ms)}};
      });
}

void handle_drop_dead_letter(const exchange_ptr& ex) {
  handle_drop_kept(ex, atom::drop_letter_v, unknown_letter());
}

void handle_retry_dead_letter(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  auto peer = ex->param(0);
  auto id = ex->param(1);
  auto drop = [ex, peer, id] {
    ex->ask_at(
        ex->ctx().operator_stream_shard,
        [ex](bool) {
          ex->reply_json(200, {{"retried", true}, {"applied", true}});
        },
        atom::drop_letter_v, peer, id);
  };
  ex->ask_at(
      ex->ctx().operator_stream_shard,
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
