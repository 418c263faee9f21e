#pragma once
// tools/phone's command line: `phone <verb> [options]`, `--help` everywhere.

#include <iosfwd>
#include <map>
#include <set>
#include <string>

namespace simsync::phone {

/// The options given to one verb: `--name value` ones and bare flags.
struct arguments {
  std::map<std::string, std::string> values;
  std::set<std::string> flags;

  std::string value(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  }
  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
};

/// Runs the command line; returns the exit code (see exit_code). `interactive`
/// says whether questions may be asked on `in`.
int run(int argc, const char* const* argv, std::istream& in, std::ostream& out,
        std::ostream& err, bool interactive);

} // namespace simsync::phone
