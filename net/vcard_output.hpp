#pragma once

// Which vCard version a phone asked for, and cards written in it.

#include "core/vcard.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace simsync::net {

/// The version asked: `?version=` wins over `Accept: text/vcard;version=`.
/// Neither: nullopt, and cards go out as their original bytes.
struct version_choice {
  std::optional<core::vcard_version> version;
  std::string error; ///< set when ?version= names no version the gateway writes
};

version_choice requested_version(std::optional<std::string_view> query_version,
                                 std::string_view accept);

/// A stored card as the phone asked for it: its original bytes (rewritten as
/// 3.0 when they are not UTF-8), or rewritten in `version`. A card without a
/// UID of its own gets `UID:<uid>` (the UID it is stored under, which the
/// server assigned), so the phone can address it later. A card that no
/// longer parses goes out as stored rather than being lost from the answer.
std::string render_card(const std::string& original,
                        std::optional<core::vcard_version> version,
                        const std::string& uid);

} // namespace simsync::net
