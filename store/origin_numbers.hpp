#pragma once

// How the node writes what it stores of one account with each origin as its
// number (core::origin_number), and tells the store which numbers it used:
// the store's scripts claim them in the account's table of origins
// (claim_origin in store/lua/lib.lua), and write out again the records of
// an origin whose number the table gives another.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simsync::store {

class origin_numbering {
public:
  /// The origins numbered at most, which bounds the search for one.
  static constexpr std::size_t origins_numbered = 64;

  /// Appends `record` (a record checked_record_hlc took, its origin
  /// `origin` as core::record_origin reads it) to `out` with its origin as
  /// its number (in the text form, for an HLC the compact form does not
  /// take, as it is); as it is when another origin of these records has
  /// that number (the first keeps it), or when these records came from
  /// origins_numbered others already (the store keeps a table of a few
  /// origins an account: claim_origin in store/lua/lib.lua).
  void append(std::string& out, std::string_view record, std::string_view origin);

  /// The numbers used, each followed by its origin's text (number, text,
  /// ...): the claims the store's script takes, an argument each.
  const std::vector<std::string>& claimed() const { return claimed_; }

private:
  /// The number each origin met so far is written as (empty: written out).
  const std::string& number_for(std::string_view origin);

  std::vector<std::pair<std::string, std::string>> numbers_; ///< origin, number
  std::vector<std::string> claimed_;
};

} // namespace simsync::store
