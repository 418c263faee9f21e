#pragma once

#include <gtest/gtest.h>

#include <csignal>
#include <sys/types.h>

namespace simsync::testing {

/// A process stopped with SIGSTOP until resumed or the scope ends, even when
/// an assertion returns early: a stopped Redis would hang the teardown.
class paused_process {
public:
  explicit paused_process(pid_t pid) : pid_(pid) { EXPECT_EQ(::kill(pid_, SIGSTOP), 0); }
  ~paused_process() { resume(); }
  paused_process(const paused_process&) = delete;
  paused_process& operator=(const paused_process&) = delete;
  void resume() {
    if (pid_ > 0) {
      EXPECT_EQ(::kill(pid_, SIGCONT), 0);
    }
    pid_ = -1;
  }

private:
  pid_t pid_;
};

} // namespace simsync::testing
