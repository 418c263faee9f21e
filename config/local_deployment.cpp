#include "config/local_deployment.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <sys/wait.h>

namespace simsync::config {

namespace {

/// $SIMSYNC_CLUSTER; else the source tree's tools/cluster when this program
/// runs where it was built; else, as the Debian package installs them,
/// simsync-cluster beside this program.
std::string cluster_script() {
  if (const char* script = std::getenv("SIMSYNC_CLUSTER"); script && *script)
    return script;
  std::error_code ec;
  if (std::filesystem::exists(SIMSYNC_CLUSTER_SCRIPT, ec))
    return SIMSYNC_CLUSTER_SCRIPT;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("simsync-cluster")
            : (self.parent_path() / "simsync-cluster").string();
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace

nlohmann::json local_deployment_status(const std::string& configs,
                                       const std::string& hint) {
  auto script = cluster_script();
  auto command = shell_quote(script) + " status --json";
  if (!configs.empty())
    command += " --configs " + shell_quote(configs);
  command += " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    throw std::runtime_error("cannot run " + script + hint);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    text.append(buffer, n);
  int status = ::pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("no local deployment: " + command + " failed" + hint);
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("carriers") ||
      !json["carriers"].is_array() || json["carriers"].empty())
    throw std::runtime_error("no local deployment: " + script + " lists no carriers" +
                             hint);
  return json;
}

} // namespace simsync::config
