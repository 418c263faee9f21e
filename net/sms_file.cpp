// The "file" SMS gateway: messages as JSON lines in a file, for local
// deployments and tests, where nothing can send a real text message.

#include "net/instant.hpp"
#include "net/sms_gateway.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fcntl.h>
#include <unistd.h>

namespace simsync::net {

namespace {

namespace fs = std::filesystem;

std::uint64_t now_unix_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
}

class file_sms_gateway final : public sms_gateway {
public:
  explicit file_sms_gateway(std::string path) : path_(std::move(path)) {}

  std::string send(const std::string& msisdn, const std::string& text) override {
    nlohmann::ordered_json message;
    message["at"] = rfc3339_of(now_unix_ms());
    message["to"] = msisdn;
    message["text"] = text;
    // Invalid UTF-8 is replaced rather than thrown on: a message is still sent.
    auto line =
        message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    // O_APPEND keeps other processes' lines whole; the mutex keeps a partial
    // write's remainder next to its beginning within this one.
    std::lock_guard<std::mutex> lock{mutex_};
    auto folder = fs::path{path_}.parent_path();
    std::error_code ec;
    if (!folder.empty())
      fs::create_directories(folder, ec);
    if (ec)
      return "sms file: cannot create " + folder.string() + ": " + ec.message();
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
      return "sms file: cannot open " + path_ + ": " + std::strerror(errno);
    std::size_t written = 0;
    while (written < line.size()) {
      auto n = ::write(fd, line.data() + written, line.size() - written);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        std::string error =
            "sms file: cannot write " + path_ + ": " + std::strerror(errno);
        ::close(fd);
        return error;
      }
      written += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0)
      return "sms file: cannot write " + path_ + ": " + std::strerror(errno);
    return {};
  }

private:
  std::string path_;
  std::mutex mutex_;
};

} // namespace

std::shared_ptr<sms_gateway> make_file_sms_gateway(const std::string& path) {
  return std::make_shared<file_sms_gateway>(path);
}

} // namespace simsync::net
