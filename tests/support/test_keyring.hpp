#pragma once

#include "core/digest.hpp"
#include "core/keyring.hpp"
#include "tests/support/random_hex.hpp"

#include <map>
#include <memory>
#include <string>

namespace simsync::testing {

/// A carrier's keys for a test store: seal key 1 and a lookup key, random
/// each call, so that no two stores share them.
inline std::shared_ptr<core::shared_keyring> test_keyring() {
  return std::make_shared<core::shared_keyring>(
      core::keyring({{1, random_hex(32)}}, 1, random_hex(64)));
}

/// A keyring file's text (config/keyring_file.hpp): `keys` (id -> bytes),
/// `writer` seals, `lookup` the lookup key's bytes.
inline std::string keyring_text(const std::map<int, std::string>& keys, int writer,
                                const std::string& lookup) {
  std::string out = "writer = " + std::to_string(writer) + "\nlookup = \"" +
                    core::hex(lookup) + "\"\n[keys]\n";
  for (const auto& [id, key] : keys)
    out += std::to_string(id) + " = \"" + core::hex(key) + "\"\n";
  return out;
}

} // namespace simsync::testing
