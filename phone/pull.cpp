// phone pull: the update request, the pending fetch, and the user's decision
// (F5, F6 in docs/architecture.md).
#include "phone/book_file.hpp"
#include "phone/card_label.hpp"
#include "phone/carrier_client.hpp"
#include "phone/error.hpp"
#include "phone/file_io.hpp"
#include "phone/verbs.hpp"

#include <ostream>
#include <unordered_map>

namespace simsync::phone {

namespace {

/// What the carrier handed over in one fetch.
struct change_set {
  std::string cursor;
  nlohmann::json counts;
  core::prepared_book cards;
  std::vector<std::string> removed_uids;

  bool empty() const { return cards.entries.empty() && removed_uids.empty(); }
};

/// Changes per page: a phone holds one page in memory at a time, and a
/// large mailbox (a new line of a 50,000-card book) comes in many.
constexpr std::uint32_t page_size = 500;

/// Every page of one fetch: its counts (the whole fetch's), the cursor for
/// the ack (the same on every page), the cards and the removed uids.
change_set fetch(carrier_client& client) {
  client.update();
  change_set set;
  std::string cards;
  std::string next;
  do {
    auto answer = client.pending(page_size, next);
    if (next.empty()) {
      set.cursor = answer.value("cursor", "");
      set.counts = answer;
    } else if (answer.value("cursor", "") != set.cursor) {
      throw failure("pending fetch: the carrier changed the cursor between pages");
    }
    cards += answer.value("cards", "");
    for (const auto& uid : answer.value("removed_uids", nlohmann::json::array()))
      if (uid.is_string())
        set.removed_uids.push_back(uid.get<std::string>());
    next = answer.value("next", "");
  } while (!next.empty());
  set.cards = core::prepare_book(cards);
  return set;
}

/// The summary and one line per contact: first "+" new to this book, then "~"
/// a card the book holds in another version, then "-" removed.
void show(phone_context& ctx, const change_set& set,
          const std::vector<local_card>& book) {
  std::unordered_map<std::string, const local_card*> held;
  for (const auto& card : book)
    held.emplace(card.uid, &card);
  ctx.out << "pending from your other lines: " << set.counts.value("added", 0)
          << " added, " << set.counts.value("changed", 0) << " changed, "
          << set.counts.value("removed", 0) << " removed\n";
  for (bool in_book : {false, true})
    for (const auto& entry : set.cards.entries)
      if ((held.count(entry.uid) > 0) == in_book)
        ctx.out << (in_book ? "  ~ " : "  + ") << card_label(entry.card, entry.uid)
                << "\n";
  for (const auto& uid : set.removed_uids) {
    auto it = held.find(uid);
    ctx.out << "  - " << (it == held.end() ? uid : card_label(it->second->bytes, uid))
            << "\n";
  }
  if (!set.cards.rejected.empty())
    ctx.out << "  (" << set.cards.rejected.size()
            << " incoming cards could not be read and are left out)\n";
}

void apply(phone_context& ctx, carrier_client& client, phone_state& state,
           const change_set& set, std::vector<local_card>& book) {
  merge_changes(book, set.cards.entries, set.removed_uids);
  // The book first: if the ack is lost, the next pull brings the same
  // changes again, and applying them twice gives the same book.
  write_file_atomically(ctx.book_path, write_book(book));
  client.ack(set.cursor, "apply");
  for (const auto& entry : set.cards.entries)
    state.base[entry.uid] = entry.hash;
  for (const auto& uid : set.removed_uids)
    state.base.erase(uid);
  state.cursor = set.cursor;
  save_state(state_path(ctx.book_path), state);
  ctx.out << "applied: " << ctx.book_path << " now holds " << book.size() << " cards\n";
}

void discard(phone_context& ctx, carrier_client& client, phone_state& state,
             const change_set& set) {
  client.ack(set.cursor, "discard");
  state.cursor = set.cursor;
  save_state(state_path(ctx.book_path), state);
  ctx.out << "discarded: " << ctx.book_path << " is unchanged\n";
}

} // namespace

void pull_verb(phone_context& ctx) {
  bool want_apply = ctx.args.has("--apply");
  bool want_discard = ctx.args.has("--discard");
  if (want_apply && want_discard)
    throw usage_error("--apply and --discard exclude each other");
  auto state = registered_state(ctx);
  carrier_client client(resolve_gateway(ctx, state), state.msisdn, state.token);
  auto set = fetch(client);
  if (set.empty()) {
    ctx.out << "nothing new from your other lines\n";
    return;
  }
  auto text = read_file(ctx.book_path);
  auto book = read_book(text ? *text : "");
  show(ctx, set, book);
  if (!want_apply && !want_discard) {
    if (!ctx.interactive) {
      ctx.out << "not decided: run phone pull --apply to take these changes, or "
                 "phone pull --discard to refuse them\n";
      return;
    }
    want_apply = confirm(ctx, "apply these changes?");
  }
  if (want_apply)
    apply(ctx, client, state, set, book);
  else
    discard(ctx, client, state, set);
}

} // namespace simsync::phone
