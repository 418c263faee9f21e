// Every type in the project's type-ID block (actors/actors.hpp) survives CAF's
// binary serialization, as it does between nodes and carriers, with every
// field: each type has a sample whose every field (nested ones, vector
// elements and set optionals included) differs from its default, and the
// value read back is compared field by field, found by structured bindings
// rather than by name, so a field an inspect overload forgets fails here,
// including one added later. A type added to the block without samples
// fails the guard. Actor handles round-trip too, within one actor system
// (the registry resolves them back), as between a node's systems.
#include "actors/actors.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace simsync {
namespace {

// -- the fields of an aggregate, without naming them --------------------------

/// Converts to any field type: T{field_filler{}...} compiles with N fillers
/// exactly when the aggregate T has at least N fields.
struct field_filler {
  template <class T> operator T() const; // only in unevaluated operands
};

template <class T, class Indices, class = void>
struct initializable_with : std::false_type {};

template <class T, std::size_t... Is>
struct initializable_with<T, std::index_sequence<Is...>,
                          std::void_t<decltype(T{(void(Is), field_filler{})...})>>
    : std::true_type {};

template <class T, std::size_t N = 0> constexpr std::size_t field_count() {
  if constexpr (initializable_with<T, std::make_index_sequence<N + 1>>::value)
    return field_count<T, N + 1>();
  else
    return N;
}

/// References to every field of `x`, in declaration order. A miscount is a
/// compile error (the structured binding must name every field).
template <class T> auto fields(const T& x) {
  constexpr auto n = field_count<T>();
  static_assert(n >= 1 && n <= 20, "fields(): add a case for this many fields");
  if constexpr (n == 1) {
    auto& [f1] = x;
    return std::tie(f1);
  } else if constexpr (n == 2) {
    auto& [f1, f2] = x;
    return std::tie(f1, f2);
  } else if constexpr (n == 3) {
    auto& [f1, f2, f3] = x;
    return std::tie(f1, f2, f3);
  } else if constexpr (n == 4) {
    auto& [f1, f2, f3, f4] = x;
    return std::tie(f1, f2, f3, f4);
  } else if constexpr (n == 5) {
    auto& [f1, f2, f3, f4, f5] = x;
    return std::tie(f1, f2, f3, f4, f5);
  } else if constexpr (n == 6) {
    auto& [f1, f2, f3, f4, f5, f6] = x;
    return std::tie(f1, f2, f3, f4, f5, f6);
  } else if constexpr (n == 7) {
    auto& [f1, f2, f3, f4, f5, f6, f7] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7);
  } else if constexpr (n == 8) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8);
  } else if constexpr (n == 9) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9);
  } else if constexpr (n == 10) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10);
  } else if constexpr (n == 11) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11);
  } else if constexpr (n == 12) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12);
  } else if constexpr (n == 13) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13);
  } else if constexpr (n == 14) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14);
  } else if constexpr (n == 15) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15);
  } else if constexpr (n == 16) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
                    f16);
  } else if constexpr (n == 17) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17] =
        x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16,
                    f17);
  } else if constexpr (n == 18) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17,
           f18] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16,
                    f17, f18);
  } else if constexpr (n == 19) {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17,
           f18, f19] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16,
                    f17, f18, f19);
  } else {
    auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17,
           f18, f19, f20] = x;
    return std::tie(f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16,
                    f17, f18, f19, f20);
  }
}

// -- what kind of value a field holds -----------------------------------------

template <class T> struct is_vector : std::false_type {};
template <class T> struct is_vector<std::vector<T>> : std::true_type {};

template <class T> struct is_map : std::false_type {};
template <class K, class V> struct is_map<std::map<K, V>> : std::true_type {};

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<caf::optional<T>> : std::true_type {};

template <class T>
constexpr bool is_leaf =
    std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>;

template <class T> constexpr bool is_handle = caf::is_typed_actor<T>::value;

template <class T> std::string show(const T& x) {
  if constexpr (std::is_same_v<T, std::string>)
    return '"' + x + '"';
  else if constexpr (std::is_same_v<T, bool>)
    return x ? "true" : "false";
  else if constexpr (std::is_enum_v<T>)
    return "enum " + std::to_string(static_cast<long long>(x));
  else
    return std::to_string(x);
}

template <class T, class F, std::size_t... Is>
void for_each_field(const T& a, const T& b, F f, std::index_sequence<Is...>) {
  auto fa = fields(a);
  auto fb = fields(b);
  (f(std::get<Is>(fa), std::get<Is>(fb), Is), ...);
}

template <class T, class F> void for_each_field(const T& a, const T& b, F f) {
  for_each_field(a, b, f, std::make_index_sequence<field_count<T>()>{});
}

/// Adds to `out` every place (".2[1].0": field 2, element 1, field 0, counted
/// from 0) where `sample` holds the value its type (or its enclosing type)
/// holds by default: a vector or map of fewer than 2 elements, an optional
/// none, an enum zero count as well.
template <class T>
void find_defaults(const T& sample, const T& by_default, const std::string& at,
                   std::vector<std::string>& out) {
  if constexpr (is_vector<T>::value) {
    if (sample.size() < 2)
      out.push_back(at + ": fewer than 2 elements");
    for (std::size_t i = 0; i < sample.size(); ++i)
      find_defaults(sample[i], typename T::value_type{},
                    at + '[' + std::to_string(i) + ']', out);
  } else if constexpr (is_map<T>::value) {
    if (sample.size() < 2)
      out.push_back(at + ": fewer than 2 entries");
  } else if constexpr (is_optional<T>::value) {
    if (!sample)
      out.push_back(at + ": none");
    else
      find_defaults(*sample, typename T::type{}, at, out);
  } else if constexpr (is_handle<T>) {
    if (!sample)
      out.push_back(at + ": no actor");
  } else if constexpr (is_leaf<T>) {
    if (sample == by_default)
      out.push_back(at + ": its default, " + show(sample));
    if constexpr (std::is_enum_v<T>)
      if (static_cast<std::underlying_type_t<T>>(sample) == 0)
        out.push_back(at + ": enum zero");
  } else {
    static_assert(std::is_aggregate_v<T>, "find_defaults: a kind of field to add");
    for_each_field(sample, by_default, [&](const auto& s, const auto& d, std::size_t i) {
      find_defaults(s, d, at + '.' + std::to_string(i), out);
    });
  }
}

/// Adds to `out` every place where `got` differs from `want`.
template <class T>
void find_differences(const T& want, const T& got, const std::string& at,
                      std::vector<std::string>& out) {
  if constexpr (is_vector<T>::value) {
    if (want.size() != got.size()) {
      out.push_back(at + ": " + std::to_string(got.size()) + " elements, not " +
                    std::to_string(want.size()));
      return;
    }
    for (std::size_t i = 0; i < want.size(); ++i)
      find_differences(want[i], got[i], at + '[' + std::to_string(i) + ']', out);
  } else if constexpr (is_map<T>::value) {
    if (want != got)
      out.push_back(at + ": the map differs");
  } else if constexpr (is_optional<T>::value) {
    if (static_cast<bool>(want) != static_cast<bool>(got))
      out.push_back(at + (want ? ": none, not a value" : ": a value, not none"));
    else if (want)
      find_differences(*want, *got, at, out);
  } else if constexpr (is_handle<T>) {
    if (want != got)
      out.push_back(at + ": another actor");
  } else if constexpr (is_leaf<T>) {
    if (want != got)
      out.push_back(at + ": " + show(got) + ", not " + show(want));
  } else {
    static_assert(std::is_aggregate_v<T>, "find_differences: a kind of field to add");
    for_each_field(want, got, [&](const auto& w, const auto& g, std::size_t i) {
      find_differences(w, g, at + '.' + std::to_string(i), out);
    });
  }
}

template <class T> std::string name_of() {
  if constexpr (caf::has_type_id<T>::value)
    return caf::type_name<T>::value;
  else
    return "a type outside the block";
}

template <class T> std::string joined(const std::vector<std::string>& lines) {
  std::string out = name_of<T>();
  for (const auto& line : lines)
    out += "\n  " + line;
  return out;
}

// -- samples ------------------------------------------------------------------

/// Live actors (of no interface in particular) for the handles in samples.
struct actors {
  caf::actor first;
  caf::actor second;
};

template <class T> struct tag { using type = T; };

/// `n` (1 or 2) makes the elements of a vector differ.
std::string text(const char* what, int n) {
  return std::string(what) + '-' + std::to_string(n);
}

core::content_hash hash(int n) {
  return core::content_hash::of(text("card", n));
}

core::stamp a_stamp(int n) {
  return {static_cast<std::uint64_t>(1700000000000 + n), text("carrier", n),
          text("+86138", n)};
}

core::book_entry book_entry(int n) {
  return {text("simsync-uid", n), hash(n), text("BEGIN:VCARD", n),
          static_cast<std::size_t>(6 + n), true};
}

core::stamped_card stamped_card(int n) {
  return {a_stamp(n), true, hash(n), text("card", n), a_stamp(n + 10)};
}

store::outbox_entry outbox_entry(int n) {
  return {text("5", n), text("idcode", n), store::outbox_kind::hold, text("batch", n)};
}

store::stored_card stored_card(int n) {
  return {text("uid", n), stamped_card(n)};
}

store::history_change history_change(int n) {
  return {text("id", n),      text("uid", n),     static_cast<std::uint64_t>(n),
          text("removed", n), text("carrier", n), text("line", n)};
}

store::pending_change pending_change(int n) {
  return {text("uid", n), store::change_kind::removed, stamped_card(n)};
}

store::line_info line_info(int n) {
  return {text("idcode", n), text("iccid-hash", n), text("token-hash", n)};
}

store::subscriber_record subscriber_record(int n) {
  return {text("line-id", n), text("iccid-hash", n), text("idcode", n),
          std::string("\x01\x00sealed", 8) + text("", n), false};
}

store::subscriber_outcome subscriber_outcome(int n) {
  return {store::subscriber_change::replaced, true, text("owner", n)};
}

store::dead_letter dead_letter(int n) {
  return {outbox_entry(n), text("the idcode is not hex", n)};
}

store::kept_letter kept_letter(int n) {
  return {text("7", n), dead_letter(n), static_cast<std::uint64_t>(1700000000000 + n)};
}

store::aside_entry aside_entry(int n) {
  return {text("1700000000000-", n),
          text("a card does not open", n),
          static_cast<std::uint64_t>(1700000000000 + n),
          text("idcode", n),
          "batch",
          static_cast<std::uint64_t>(2 + n)};
}

metrics::actor_status actor_status(int n) {
  metrics::actor_status s;
  s.name = text("peer_link/carrier-b", n);
  s.kind = "peer_link";
  s.shard = 3 + n;
  s.mailbox = 4;
  s.processed = 5;
  s.restarts = 6;
  s.last_error = "store_unavailable";
  s.latency_counts = {7, 8};
  s.latency_sum_us = 9;
  s.peer = "carrier-b";
  s.link_state = "up";
  s.outbox = 10;
  s.lag_ms = 11;
  s.batches_sent = 12;
  s.bytes_sent = 13;
  s.acknowledged = 14;
  s.card_forms = {{"b1", "vcard-deflate-1"}, {"b2", "vcard"}};
  s.refused = {{"bad-signature", 15}, {"unknown-origin", 16}};
  s.directory = {{"asked", 17}, {"answered", 18}};
  s.paced = {{"carrier-b", 19}, {"carrier-c", 20}};
  return s;
}

template <class T, class F> std::vector<T> pair_of(F make) {
  return {make(1), make(2)};
}

// One overload per type of the block. The first sample sets every field (the
// test checks it does); the others are edge cases that only round-trip.

std::vector<core::book_entry> samples(tag<core::book_entry>, const actors&) {
  return {book_entry(1)};
}

std::vector<core::stamped_card> samples(tag<core::stamped_card>, const actors&) {
  return {stamped_card(1)};
}

std::vector<store::register_request> samples(tag<store::register_request>,
                                             const actors&) {
  return {{"idcode",
           "bGluZS1pZC1vZi1hLWxpbmU",
           "aWNjaWQtaGFzaC1vZi1zaW0",
           std::string(64, 'a'),
           std::string("\x01\x00sealed", 8),
           1700000000000,
           {"carrier-b", "carrier-c"},
           std::string("\x01\x00msisdn", 8)}};
}

std::vector<store::register_result> samples(tag<store::register_result>, const actors&) {
  return {{true, true}};
}

std::vector<store::upload_request> samples(tag<store::upload_request>, const actors&) {
  store::upload_request x;
  x.idcode = "idcode";
  x.line = "bGluZS1pZC1vZi1hLWxpbmU";
  x.token_hash = "token-hash";
  x.scope = store::scope::private_backup;
  x.mode = store::upload_mode::prune;
  x.cards = pair_of<core::book_entry>(book_entry);
  x.uids = {"uid-1", "uid-2"};
  x.allow_removals = false;
  x.now_ms = 1700000000000;
  x.guard = {3, 50};
  x.confirm_removals = 4;
  x.later_part = true;
  x.scan_cursor = "1234";
  x.scan_count = 5;
  return {x};
}

std::vector<store::upload_result> samples(tag<store::upload_result>, const actors&) {
  store::upload_result x;
  x.version = 1;
  x.added = 2;
  x.changed = 3;
  x.removed = 4;
  x.unchanged = 5;
  x.conflicts = {{"uid-1", "too big"}, {"uid-2", "bad card"}};
  x.would_remove = 6;
  x.book_size = 7;
  x.cards_to_send = "0110";
  x.base_holds = 8;
  x.base_size = 9;
  x.discarded = {"uid-3", "uid-6"};
  x.base_uids = {"uid-4", "uid-5"};
  x.scan_cursor = "77";
  return {x};
}

std::vector<store::history_page> samples(tag<store::history_page>, const actors&) {
  return {{pair_of<store::history_change>(history_change),
           {{"line-1", std::string("\x01\x00one", 5)},
            {"line-2", std::string("\x01\x00two", 5)}},
           "next"}};
}

std::vector<store::restore_request> samples(tag<store::restore_request>, const actors&) {
  return {{"idcode", "bGluZS1pZC1vZi1hLWxpbmU", "token-hash",
           store::scope::private_backup, 1, false, 2}};
}

std::vector<store::replicate_result> samples(tag<store::replicate_result>,
                                             const actors&) {
  return {{1, 2, 3, 4, 5, 6, 7, 8}};
}

std::vector<store::pending_counts> samples(tag<store::pending_counts>, const actors&) {
  return {{1, 2, 3}};
}

std::vector<store::ack_progress> samples(tag<store::ack_progress>, const actors&) {
  return {{7, false}};
}

std::vector<store::pending_fetch> samples(tag<store::pending_fetch>, const actors&) {
  return {{"cursor",
           {1, 2, 3},
           pair_of<store::pending_change>(pending_change),
           "next",
           "tag",
           true}};
}

std::vector<store::decision> samples(tag<store::decision>, const actors&) {
  return {store::decision::discard};
}

std::vector<store::scope> samples(tag<store::scope>, const actors&) {
  return {store::scope::private_backup};
}

std::vector<store::stored_card> samples(tag<store::stored_card>, const actors&) {
  return {stored_card(1)};
}

std::vector<std::vector<store::stored_card>> samples(tag<std::vector<store::stored_card>>,
                                                     const actors&) {
  return {pair_of<store::stored_card>(stored_card), {}};
}

std::vector<store::line_info> samples(tag<store::line_info>, const actors&) {
  return {line_info(1)};
}

std::vector<caf::optional<store::line_info>> samples(tag<caf::optional<store::line_info>>,
                                                     const actors&) {
  return {line_info(1), caf::none};
}

std::vector<store::outbox_entry> samples(tag<store::outbox_entry>, const actors&) {
  return {outbox_entry(1)};
}

std::vector<std::vector<store::outbox_entry>>
samples(tag<std::vector<store::outbox_entry>>, const actors&) {
  return {pair_of<store::outbox_entry>(outbox_entry), {}};
}

std::vector<peer_batch> samples(tag<peer_batch>, const actors&) {
  return {{"carrier-a", pair_of<store::outbox_entry>(outbox_entry)}};
}

std::vector<signed_batch> samples(tag<signed_batch>, const actors&) {
  return {
      {"carrier-a", "carrier-b", std::string("\0\1payload", 9), std::string(64, '\x7f')}};
}

std::vector<account_shard_actor> samples(tag<account_shard_actor>, const actors& a) {
  return {caf::actor_cast<account_shard_actor>(a.first), account_shard_actor{}};
}

std::vector<node_shards> samples(tag<node_shards>, const actors& a) {
  return {{{3, 5},
           {caf::actor_cast<account_shard_actor>(a.first),
            caf::actor_cast<account_shard_actor>(a.second)}}};
}

std::vector<metrics::actor_status> samples(tag<metrics::actor_status>, const actors&) {
  return {actor_status(1)};
}

std::vector<std::vector<metrics::actor_status>>
samples(tag<std::vector<metrics::actor_status>>, const actors&) {
  return {pair_of<metrics::actor_status>(actor_status)};
}

std::vector<federation_actor> samples(tag<federation_actor>, const actors& a) {
  return {caf::actor_cast<federation_actor>(a.first), federation_actor{}};
}

std::vector<router_actor> samples(tag<router_actor>, const actors& a) {
  return {caf::actor_cast<router_actor>(a.first), router_actor{}};
}

std::vector<store::pending_request> samples(tag<store::pending_request>, const actors&) {
  return {{"idcode", "bGluZS1pZC1vZi1hLWxpbmU", "token-hash", 25, "next", "known-tag"}};
}

std::vector<store::claim_result> samples(tag<store::claim_result>, const actors&) {
  return {{true, "owner", 1700000000000}};
}

std::vector<store::subscriber_record> samples(tag<store::subscriber_record>,
                                              const actors&) {
  return {subscriber_record(1)};
}

std::vector<std::vector<store::subscriber_record>>
samples(tag<std::vector<store::subscriber_record>>, const actors&) {
  return {pair_of<store::subscriber_record>(subscriber_record)};
}

std::vector<store::subscriber_outcome> samples(tag<store::subscriber_outcome>,
                                               const actors&) {
  return {subscriber_outcome(1)};
}

std::vector<std::vector<store::subscriber_outcome>>
samples(tag<std::vector<store::subscriber_outcome>>, const actors&) {
  return {pair_of<store::subscriber_outcome>(subscriber_outcome)};
}

std::vector<store::code_request> samples(tag<store::code_request>, const actors&) {
  return {
      {"bGluZS1pZC1vZi1hLWxpbmU", "aWNjaWQtaGFzaC1vZi1zaW0", "code-hash", 1, 2, 3, 4}};
}

std::vector<store::code_check> samples(tag<store::code_check>, const actors&) {
  return {{"bGluZS1pZC1vZi1hLWxpbmU", "code-hash", 5, 6}};
}

std::vector<store::verified_subscriber> samples(tag<store::verified_subscriber>,
                                                const actors&) {
  return {{std::string(64, 'c'), "aWNjaWQtaGFzaC1vZi1zaW0", "sealed"}};
}

std::vector<store::dead_letter> samples(tag<store::dead_letter>, const actors&) {
  return {dead_letter(1)};
}

std::vector<std::vector<store::dead_letter>> samples(tag<std::vector<store::dead_letter>>,
                                                     const actors&) {
  return {pair_of<store::dead_letter>(dead_letter)};
}

std::vector<store::kept_letter> samples(tag<store::kept_letter>, const actors&) {
  return {kept_letter(1)};
}

std::vector<std::vector<store::kept_letter>> samples(tag<std::vector<store::kept_letter>>,
                                                     const actors&) {
  return {pair_of<store::kept_letter>(kept_letter)};
}

std::vector<store::aside_entry> samples(tag<store::aside_entry>, const actors&) {
  return {aside_entry(1)};
}

std::vector<std::vector<store::aside_entry>> samples(tag<std::vector<store::aside_entry>>,
                                                     const actors&) {
  return {pair_of<store::aside_entry>(aside_entry)};
}

std::vector<user_directory_actor> samples(tag<user_directory_actor>, const actors& a) {
  return {caf::actor_cast<user_directory_actor>(a.first), user_directory_actor{}};
}

std::vector<store::sealed_delivery> samples(tag<store::sealed_delivery>, const actors&) {
  return {{"carrier-a",
           {outbox_entry(1), outbox_entry(2)},
           {{text("uid", 1), std::string("\0sealed", 7) + text("", 1)},
            {text("uid", 2), text("sealed", 2)}}}};
}

// -- the block ----------------------------------------------------------------

template <class T, class = void> struct has_samples : std::false_type {};
template <class T>
struct has_samples<T, std::void_t<decltype(samples(tag<T>{}, std::declval<actors>()))>>
    : std::true_type {};

constexpr caf::type_id_t block_begin = caf::id_block::simsync::begin;
constexpr caf::type_id_t block_end = caf::id_block::simsync::end;

/// Calls f(tag<T>{}, id) for every type T of the block, in ID order.
template <class F, caf::type_id_t... Is>
void for_each_type(F f, std::integer_sequence<caf::type_id_t, Is...>) {
  (f(tag<typename caf::type_by_id<block_begin + Is>::type>{},
     static_cast<caf::type_id_t>(block_begin + Is)),
   ...);
}

template <class F> void for_each_type(F f) {
  for_each_type(f, std::make_integer_sequence<caf::type_id_t, block_end - block_begin>{});
}

struct config : caf::actor_system_config {
  config() { add_message_types<caf::id_block::simsync>(); }
};

class type_id_block : public ::testing::Test {
protected:
  ~type_id_block() override {
    caf::anon_send_exit(live.first, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(live.second, caf::exit_reason::user_shutdown);
  }

  static caf::behavior idle() {
    return {[](int32_t) {}};
  }

  /// The bytes of `x`; a handle in it is registered with the system.
  template <class T> std::vector<char> bytes_of(T x) {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    auto err = sink(x);
    EXPECT_FALSE(err) << name_of<T>() << ": " << sys.render(err);
    return buf;
  }

  template <class T> T read(const std::vector<char>& buf) {
    T back;
    caf::binary_deserializer source{sys, buf};
    auto err = source(back);
    EXPECT_FALSE(err) << name_of<T>() << ": " << sys.render(err);
    EXPECT_EQ(source.remaining(), 0u) << name_of<T>();
    return back;
  }

  /// Round-trips `x`: every field read back as written, and the value read
  /// back serializes to the same bytes.
  template <class T> void check_round_trip(const T& x) {
    auto buf = bytes_of(x);
    auto back = read<T>(buf);
    std::vector<std::string> differences;
    find_differences(x, back, "", differences);
    EXPECT_TRUE(differences.empty())
        << "read back differently: " << joined<T>(differences);
    EXPECT_EQ(bytes_of(back), buf) << name_of<T>();
  }

  config cfg;
  caf::actor_system sys{cfg};
  actors live{sys.spawn(idle), sys.spawn(idle)};
};

TEST_F(type_id_block, every_type_in_the_block_has_samples) {
  std::size_t covered = 0;
  for_each_type([&](auto t, caf::type_id_t id) {
    using type = typename decltype(t)::type;
    if (has_samples<type>::value)
      ++covered;
    else
      ADD_FAILURE() << "type ID " << id << ", " << caf::type_name<type>::value
                    << ": no samples in type_id_block_test.cpp";
  });
  EXPECT_EQ(covered, static_cast<std::size_t>(block_end - block_begin));
}

TEST_F(type_id_block, every_type_round_trips_with_every_field) {
  for_each_type([&](auto t, caf::type_id_t) {
    using type = typename decltype(t)::type;
    if constexpr (has_samples<type>::value) {
      auto all = samples(t, live);
      ASSERT_FALSE(all.empty()) << caf::type_name<type>::value;
      std::vector<std::string> defaults;
      find_defaults(all.front(), type{}, "", defaults);
      EXPECT_TRUE(defaults.empty())
          << "the first sample leaves fields unset: " << joined<type>(defaults);
      for (const auto& x : all)
        check_round_trip(x);
    }
  });
}

/// What the checks above are for: an inspect that forgets a field.
struct forgetful {
  std::string kept;
  std::uint64_t forgotten = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, forgetful& x) {
  return f(caf::meta::type_name("forgetful"), x.kept);
}

TEST_F(type_id_block, a_field_an_inspect_forgets_is_found) {
  forgetful x{"kept", 7};
  std::vector<std::string> defaults;
  find_defaults(x, forgetful{}, "", defaults);
  EXPECT_TRUE(defaults.empty());
  auto back = read<forgetful>(bytes_of(x));
  std::vector<std::string> differences;
  find_differences(x, back, "", differences);
  EXPECT_EQ(differences, std::vector<std::string>{".1: 0, not 7"});
  // The bytes alone do not tell: the forgotten field is in neither.
  EXPECT_EQ(bytes_of(back), bytes_of(x));
}

} // namespace
} // namespace simsync
