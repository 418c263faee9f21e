#pragma once

#include "store/redis_client.hpp"

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace simsync::testing {

/// A text that must not be readable at rest, and what it is ("msisdn",
/// "card text"...): findings are reported and counted by category.
struct needle {
  std::string category;
  std::string text;
  /// Found only where no ASCII letter or digit touches it: a short number
  /// (a 6-digit code) otherwise occurs by chance inside timestamps and ids.
  bool whole = false;
};

/// One needle found: in which Redis or file, where in it, and the bytes
/// around it (non-printable bytes escaped), to tell which value is still clear.
struct finding {
  std::string category;
  std::string needle;
  std::string where;
  std::string context;
};

std::ostream& operator<<(std::ostream& os, const finding& f);

/// Every needle in every key name and every value of the Redis `client`
/// reaches, read by type (string; hash field and value; set and sorted-set
/// member; list element; stream entry field and value), through SCAN, so
/// `client` must be allowed every key (the test's admin user). `server`
/// names the Redis in the findings. Matching ignores case: a store may keep
/// a folded canonical form of a card. Throws std::runtime_error if Redis fails.
std::vector<finding> scan_keyspace(store::redis_client& client, const std::string& server,
                                   const std::vector<needle>& needles);

/// The files the Redis `client` reaches persists to, as it wrote them: every
/// file of its AOF folder (Redis 7: <dir>/<appenddirname>; older: the
/// <dir>/<appendfilename>) and its RDB file if one exists. Needs CONFIG GET.
std::vector<std::filesystem::path> persistence_files(store::redis_client& client);

/// Every needle in the raw bytes of `file`: one finding per needle found,
/// at its first occurrence, saying how many there are.
std::vector<finding> scan_file(const std::filesystem::path& file,
                               const std::vector<needle>& needles);

/// scan_keyspace, then scan_file on each of persistence_files: everything a
/// copy of the Redis's port, disk or backup would give away.
std::vector<finding> scan_at_rest(store::redis_client& client, const std::string& server,
                                  const std::vector<needle>& needles);

} // namespace simsync::testing
