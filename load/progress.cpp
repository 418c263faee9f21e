#include "load/progress.hpp"

#include <csignal>
#include <cstdio>

namespace simsync::load {

namespace {
const clock::time_point started = clock::now();
volatile std::sig_atomic_t stop_requested = 0;
extern "C" void on_stop_signal(int) {
  stop_requested = 1;
}
} // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

bool interrupted() {
  return stop_requested != 0;
}

void say(const std::string& text) {
  auto s = std::chrono::duration<double>(clock::now() - started).count();
  std::fprintf(stderr, "[%7.1fs] %s\n", s, text.c_str());
  std::fflush(stderr);
}

} // namespace simsync::load
