#pragma once
// What the phone remembers about its line, in `<book>.state.json` next to the book.

#include "core/book_diff.hpp"

#include <string>

namespace simsync::phone {

struct phone_state {
  std::string gateway; ///< "http://127.0.0.1:18080": the carrier that issued the token
  std::string msisdn;
  std::string token;
  std::string idcode;
  /// uid -> content hash of what the line held after its last shared push or
  /// apply: the phone's copy of the server's base, to tell local changes apart.
  core::book_base base;
  std::string cursor; ///< of the last pending fetch that was acknowledged

  bool registered() const { return !token.empty() && !msisdn.empty(); }
};

std::string state_path(const std::string& book_path);

/// The state in `path`; an empty state if the file does not exist.
phone_state load_state(const std::string& path);

void save_state(const std::string& path, const phone_state& state);

} // namespace simsync::phone
