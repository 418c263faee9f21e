#pragma once

#include "core/keyring.hpp"

#include <filesystem>
#include <string_view>

namespace simsync::config {

/// A carrier's keyring file (the node config's seal_key_file), parsed.
/// Two forms are read:
///  - a keyring, TOML: `writer = N` (the key that seals), `lookup = "<64 hex>"`
///    (the key of the MSISDN and ICCID hashes) and a [keys] table of
///    `N = "<64 hex>"` (ids 1 to 65535): every key that may have sealed a
///    stored value;
///  - one key, 32 raw bytes or 64 hex digits (a file from before keyrings):
///    key 1, which seals, with a lookup key derived from it.
/// A keyring without `lookup` derives it from its key 1 the same way, so that
/// a one-key file becomes a keyring by writing its key as key 1.
/// Throws std::runtime_error saying what is wrong (never a key's bytes).
core::keyring parse_keyring(std::string_view text);

/// Reads and parses `path`; throws std::runtime_error naming the file.
core::keyring read_keyring_file(const std::filesystem::path& path);

} // namespace simsync::config
