#pragma once

// Test helper shared by the core tests.

#include "core/vcard.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace simsync::core {

/// Parses a body that must hold exactly one good card (a test failure otherwise).
inline vcard parse_one(std::string_view body) {
  std::vector<vcard_block> blocks = parse_vcards(body);
  EXPECT_EQ(blocks.size(), 1u);
  if (blocks.empty())
    return {};
  EXPECT_TRUE(blocks[0].ok()) << blocks[0].error << " at line " << blocks[0].error_line;
  return blocks[0].card;
}

} // namespace simsync::core
