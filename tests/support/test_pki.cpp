#include "tests/support/test_pki.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sys/wait.h>

namespace simsync::testing {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

test_pki& test_pki::shared() {
  static test_pki pki;
  return pki;
}

test_pki::test_pki() {
  char tmpl[] = "/tmp/simsync-pki-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for the test PKI");
  dir_ = tmpl;
}

test_pki::~test_pki() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void test_pki::ensure(const std::string& carrier, const std::vector<std::string>& nodes) {
  std::lock_guard<std::mutex> guard{mutex_};
  std::string wanted;
  bool missing = false;
  for (const auto& node : nodes) {
    wanted += (wanted.empty() ? "" : ",") + node;
    missing = missing || made_.count(carrier + ":" + node) == 0;
  }
  if (!missing)
    return;
  // Ids are the tests' own ([a-z0-9-]), so the command line needs no quoting.
  auto command = std::string{SIMSYNC_PKI_TOOL} + " init " + dir_ + " " + carrier + ":" +
                 wanted + " >" + dir_ + "/pki.log 2>&1";
  auto status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("tools/pki init failed for " + carrier + "; see " + dir_ +
                             "/pki.log");
  for (const auto& node : nodes)
    made_.insert(carrier + ":" + node);
}

} // namespace simsync::testing
