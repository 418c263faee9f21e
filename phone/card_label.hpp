#pragma once

#include <string>
#include <string_view>

namespace simsync::phone {

/// How a person recognizes a card in a list: its formatted name (else its
/// structured name, else its UID) and its first phone number, e.g.
/// "张伟 +8613800000001". `fallback` is used when the card does not parse.
std::string card_label(std::string_view card_bytes, const std::string& fallback);

} // namespace simsync::phone
