#pragma once

// A card at rest is deflated against a preset dictionary of vCard's own words
// (property names, parameters, the frame every card shares), which takes a
// typical 200-byte card to about 120 bytes: on a card that small, plain deflate finds
// little to repeat, but most of a card is the vocabulary the dictionary holds.
// The store seals the compressed form; everything outside the store sees
// cards as they came.

#include <optional>
#include <string>
#include <string_view>

namespace simsync::core {

/// The byte a compressed card starts with. No card can start with it: every
/// card the nodes accept has been read as a vCard, which begins with BEGIN,
/// so a card stored before compression (kept as it came) is told apart by its
/// first byte. A new dictionary would take a new byte, and keep this one's.
inline constexpr char compressed_card_mark = '\x01';

/// The name of this form of a card (compressed_card_mark's dictionary) between
/// carriers: a node says it takes cards in this form, and a peer then sends
/// them as it stored them instead of expanding each for the node to compress
/// again. A new dictionary would take a new name with its new mark.
inline constexpr std::string_view compressed_card_form = "vcard-deflate-1";

/// Whether `stored` is a compressed card (starts with compressed_card_mark).
inline bool is_compressed_card(std::string_view stored) {
  return !stored.empty() && stored.front() == compressed_card_mark;
}

/// `card` deflated against the dictionary, after compressed_card_mark.
std::string compress_card(std::string_view card);

/// compress_card()'s bytes appended to `out` (a string kept from card to
/// card).
void compress_card_into(std::string& out, std::string_view card);

/// The most bytes compress_card() makes of a card of `card_bytes` (deflate
/// stores what it cannot shrink, in blocks with a small head): what a
/// compressed card from a peer may take, for a card it may hold.
std::size_t compressed_card_bound(std::size_t card_bytes);

/// The card compress_card() was given; `stored` as it is when it does not
/// start with compressed_card_mark (a card stored before compression).
/// nullopt if the deflate stream is damaged or would expand past
/// `max_bytes`.
std::optional<std::string> expand_card(std::string_view stored,
                                       std::size_t max_bytes = std::size_t{64} << 20);

/// expand_card()'s card in `out`, replacing what it held (a string kept from
/// card to card keeps its room); false, with `out` empty, where expand_card()
/// gives nullopt.
bool expand_card_into(std::string_view stored, std::string& out,
                      std::size_t max_bytes = std::size_t{64} << 20);

} // namespace simsync::core
