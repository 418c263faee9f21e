#include "load/progress.hpp"

#include <cstdio>

namespace simsync::load {

namespace {
const clock::time_point started = clock::now();
}

void say(const std::string& text) {
  auto s = std::chrono::duration<double>(clock::now() - started).count();
  std::fprintf(stderr, "[%7.1fs] %s\n", s, text.c_str());
  std::fflush(stderr);
}

} // namespace simsync::load
