#pragma once

#include <optional>
#include <string>

namespace simsync::phone {

/// The file's bytes, or nullopt if it does not exist. Other errors throw phone_error.
std::optional<std::string> read_file(const std::string& path);

/// Replaces the file's content so that a crash leaves either the old or the
/// new bytes, never a mix: writes a temporary file next to it, syncs it,
/// renames it over the old one.
void write_file_atomically(const std::string& path, const std::string& bytes);

} // namespace simsync::phone
