#pragma once

#include "core/content_hash.hpp"
#include "core/stamp.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace simsync::core {

/// One version of a contact in a store: its stamp, whether it is a tombstone,
/// the hash of its canonical form and its original bytes.
struct stamped_card {
  stamp st;
  bool deleted = false;
  content_hash hash; ///< zero for a tombstone
  std::string card;  ///< empty for a tombstone
};

/// The byte form of a stamped card, shared by C++ and the store's Lua scripts:
///   HLC(16 digits, zero padded)|HASH(32 hex)|L or D|carrier|line|card bytes
/// The fixed-width head lets Lua compare stamps and hashes without parsing
/// the card; a carrier id or msisdn never holds '|'.
std::string encode_record(const stamped_card& rec);

/// Parses encode_record's output; nullopt if the bytes are not a record.
std::optional<stamped_card> decode_record(std::string_view bytes);

} // namespace simsync::core
