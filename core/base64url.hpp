#pragma once

#include <string>
#include <string_view>

namespace simsync::core {

/// Base64url (RFC 4648 section 5) of `bytes`, without padding: the text form of
/// random tokens and keyed hashes, safe in URLs and Redis key names.
std::string base64url(std::string_view bytes);

} // namespace simsync::core
