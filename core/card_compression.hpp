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

/// `card` deflated against the dictionary, after compressed_card_mark.
std::string compress_card(std::string_view card);

/// The card compress_card() was given; `stored` as it is when it does not
/// start with compressed_card_mark (a card stored before compression).
/// nullopt if the deflate stream is damaged or would expand past
/// `max_bytes`.
std::optional<std::string> expand_card(std::string_view stored,
                                       std::size_t max_bytes = std::size_t{64} << 20);

} // namespace simsync::core
