#include "phone/file_io.hpp"

#include "phone/error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace simsync::phone {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT)
      return std::nullopt;
    throw failure("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  auto temp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* what) {
    auto reason = std::string(std::strerror(errno));
    std::remove(temp.c_str());
    throw failure(std::string("cannot ") + what + " " + path + ": " + reason);
  };
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    fail("write");
  for (std::size_t done = 0; done < bytes.size();) {
    auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      ::close(fd);
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  bool synced = ::fsync(fd) == 0;
  bool closed = ::close(fd) == 0;
  if (!synced || !closed)
    fail("write");
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    fail("replace");
}

} // namespace simsync::phone
