#pragma once

#include "core/keyring.hpp"
#include "tests/support/random_hex.hpp"

#include <memory>

namespace simsync::testing {

/// A carrier's keys for a test store: seal key 1 and a lookup key, random
/// each call, so that no two stores share them.
inline std::shared_ptr<core::shared_keyring> test_keyring() {
  return std::make_shared<core::shared_keyring>(
      core::keyring({{1, random_hex(32)}}, 1, random_hex(64)));
}

} // namespace simsync::testing
