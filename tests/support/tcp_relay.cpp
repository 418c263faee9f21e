#include "tests/support/tcp_relay.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace simsync::testing {

namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

} // namespace

tcp_relay::tcp_relay(int target_port) : target_port_(target_port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int on = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  auto addr = loopback(0);
  socklen_t len = sizeof addr;
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener_, 16) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("tcp_relay: cannot listen on 127.0.0.1");
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

tcp_relay::~tcp_relay() {
  stopping_ = true;
  ::shutdown(listener_, SHUT_RDWR);
  ::close(listener_);
  acceptor_.join();
  {
    std::lock_guard<std::mutex> guard{mtx_};
    for (int fd : sockets_)
      ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_)
    t.join();
  for (int fd : sockets_)
    ::close(fd);
}

std::string tcp_relay::carried() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return carried_;
}

void tcp_relay::accept_loop() {
  while (!stopping_) {
    int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0)
      return;
    int server = ::socket(AF_INET, SOCK_STREAM, 0);
    auto addr = loopback(target_port_);
    if (::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(client);
      ::close(server);
      continue;
    }
    std::lock_guard<std::mutex> guard{mtx_};
    sockets_.push_back(client);
    sockets_.push_back(server);
    threads_.emplace_back([this, client, server] { pump(client, server); });
    threads_.emplace_back([this, client, server] { pump(server, client); });
  }
}

void tcp_relay::pump(int from, int to) {
  char buf[16384];
  for (;;) {
    auto n = ::read(from, buf, sizeof buf);
    if (n <= 0)
      break;
    {
      std::lock_guard<std::mutex> guard{mtx_};
      carried_.append(buf, static_cast<std::size_t>(n));
    }
    for (ssize_t sent = 0; sent < n;) {
      // send, not write: a side that closed must not kill the test with SIGPIPE.
      auto w = ::send(to, buf + sent, static_cast<std::size_t>(n - sent), MSG_NOSIGNAL);
      if (w <= 0)
        break;
      sent += w;
    }
  }
  ::shutdown(to, SHUT_WR);
}

} // namespace simsync::testing
