#pragma once

// The gateway's limits, in one place. Each protects the node from one kind of
// abuse or accident and answers it with a clear problem+json error instead of
// a stalled or dropped connection. Defaults here; carrierd sets what its
// configuration names.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace simsync::net {

struct gateway_limits {
  /// A larger body is answered 413. 64 MiB holds a 100,000-card book of
  /// ordinary contacts with room for photos.
  std::size_t max_body_bytes = 64u << 20;
  /// A JSON request body (registration, ack, restore, a subscriber record)
  /// holds a few fields: a larger one is answered 413 before it is parsed.
  std::size_t max_json_bytes = 64u << 10;
  /// RESTinio reads at most this much of a body into memory; beyond it the
  /// connection is closed without an answer (RESTinio cannot answer there).
  /// Twice the answered limit, so any ordinary oversize upload still gets a 413.
  std::uint64_t hard_body_bytes = 128u << 20;
  /// A book with more cards is answered 422 and nothing is stored.
  std::size_t max_cards_per_book = 100'000;
  /// A larger card is rejected (reported, quarantined); the rest of the book is stored.
  std::size_t max_card_bytes = 1u << 20;
  /// Requests being handled at once; beyond it the gateway sheds load with
  /// 503 and Retry-After instead of queueing without bound. Config:
  /// gateway.max_in_flight.
  std::size_t max_in_flight = 1'000;
  /// How long the gateway waits for a shard's answer before answering 504.
  std::chrono::seconds actor_timeout{30};
  /// RESTinio closes a connection whose request got no answer in this time;
  /// longer than actor_timeout so the gateway's own 504 always comes first.
  std::chrono::seconds http_timeout{120};
};

} // namespace simsync::net
