#pragma once

// What every fuzz target here shares: the libFuzzer entry point's signature,
// and a failed property as a crash (libFuzzer and the corpus replay both
// report it with the input that caused it).

#include "core/keyring.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace simsync::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A property every input must keep: when it does not, the input is a defect.
inline void require(bool holds, const char* property) {
  if (holds)
    return;
  std::fprintf(stderr, "fuzz: property broken: %s\n", property);
  std::abort();
}

/// The keyring the targets seal and open with (fixed keys: runs repeat).
inline const core::keyring& keys() {
  static const core::keyring ring({{1, std::string(32, 'k')}}, 1, std::string(32, 'l'));
  return ring;
}

} // namespace simsync::fuzz
