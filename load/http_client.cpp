#include "load/http_client.hpp"

#include "load/progress.hpp"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace simsync::load {

struct http_driver::transfer {
  http_request request;
  http_callback done;
  http_response response;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  char error[CURL_ERROR_SIZE] = {};
};

namespace {

std::size_t write_body(char* data, std::size_t size, std::size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

struct curl_global {
  curl_global() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

} // namespace

http_driver::http_driver(std::size_t connections) : connections_(connections) {
  static curl_global init;
  multi_ = curl_multi_init();
  if (!multi_)
    throw std::runtime_error("curl_multi_init failed");
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_ < 0) {
    curl_multi_cleanup(static_cast<CURLM*>(multi_));
    throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
  }
  auto* m = static_cast<CURLM*>(multi_);
  curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(connections));
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, static_cast<long>(connections));
  curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, &http_driver::on_socket);
  curl_multi_setopt(m, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, &http_driver::on_timer);
  curl_multi_setopt(m, CURLMOPT_TIMERDATA, this);
}

http_driver::~http_driver() {
  auto* m = static_cast<CURLM*>(multi_);
  // Transfers still running are abandoned: their callbacks never run.
  for (auto* h : idle_handles_)
    curl_easy_cleanup(static_cast<CURL*>(h));
  curl_multi_cleanup(m);
  close(epoll_);
}

int http_driver::on_socket(void*, int socket, int what, void* self, void* socketp) {
  auto* d = static_cast<http_driver*>(self);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(d->epoll_, EPOLL_CTL_DEL, socket, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events =
      (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
  ev.data.fd = socket;
  // libcurl keeps a pointer per socket until it removes the socket: set, the
  // socket is in the epoll set already.
  if (socketp)
    return epoll_ctl(d->epoll_, EPOLL_CTL_MOD, socket, &ev) == 0 ? 0 : -1;
  if (epoll_ctl(d->epoll_, EPOLL_CTL_ADD, socket, &ev) != 0)
    return -1;
  curl_multi_assign(static_cast<CURLM*>(d->multi_), socket, d);
  return 0;
}

int http_driver::on_timer(void*, long timeout_ms, void* self) {
  auto* d = static_cast<http_driver*>(self);
  d->curl_due_ = timeout_ms < 0 ? clock::time_point::max()
                                : clock::now() + std::chrono::milliseconds{timeout_ms};
  return 0;
}

void http_driver::act(int socket, int events) {
  int running = 0;
  curl_multi_socket_action(static_cast<CURLM*>(multi_), socket, events, &running);
}

void http_driver::submit(http_request request, http_callback done) {
  auto t = std::make_unique<transfer>();
  t->request = std::move(request);
  t->done = std::move(done);
  queue_.push_back(std::move(t));
  start_queued();
}

void http_driver::submit_at(clock::time_point when, http_request request,
                            http_callback done) {
  auto t = std::make_unique<transfer>();
  t->request = std::move(request);
  t->done = std::move(done);
  delayed_.emplace(when, std::move(t));
}

void http_driver::watch_fd(int fd, std::function<void()> on_readable) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
  fds_[fd] = std::move(on_readable);
}

void http_driver::unwatch_fd(int fd) {
  epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
  fds_.erase(fd);
}

void http_driver::start_queued() {
  while (active_ < connections_ && !queue_.empty()) {
    auto t = std::move(queue_.front());
    queue_.pop_front();
    start(std::move(t));
  }
}

void http_driver::start(std::unique_ptr<transfer> t) {
  CURL* easy;
  if (!idle_handles_.empty()) {
    easy = static_cast<CURL*>(idle_handles_.back());
    idle_handles_.pop_back();
    curl_easy_reset(easy);
  } else {
    easy = curl_easy_init();
    if (!easy)
      throw std::runtime_error("curl_easy_init failed");
  }
  t->easy = easy;
  const auto& r = t->request;
  curl_easy_setopt(easy, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t->error);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t->response.body);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 10'000L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 60'000L);
  if (r.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    if (r.method != "POST")
      curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(r.body.size()));
  }
  // No "Expect: 100-continue": curl would wait for it before sending a body.
  t->headers = curl_slist_append(t->headers, "Expect:");
  if (!r.content_type.empty())
    t->headers =
        curl_slist_append(t->headers, ("Content-Type: " + r.content_type).c_str());
  if (!r.token.empty())
    t->headers =
        curl_slist_append(t->headers, ("Authorization: Bearer " + r.token).c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t->headers);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, t.get());
  t->response.started = clock::now();
  curl_multi_add_handle(static_cast<CURLM*>(multi_), easy);
  ++active_;
  t.release(); // owned by the multi handle until harvest()
}

void http_driver::harvest() {
  auto* m = static_cast<CURLM*>(multi_);
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(m, &left)) {
    if (msg->msg != CURLMSG_DONE)
      continue;
    CURL* easy = msg->easy_handle;
    transfer* raw = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &raw);
    std::unique_ptr<transfer> t(raw);
    auto& resp = t->response;
    resp.done = clock::now();
    if (msg->data.result == CURLE_OK) {
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &resp.status);
      curl_header* h = nullptr;
      if ((resp.status == 503 || resp.status == 429) &&
          curl_easy_header(easy, "Retry-After", 0, CURLH_HEADER, -1, &h) == CURLHE_OK)
        resp.retry_after_s = std::atof(h->value);
    } else {
      resp.status = 0;
      resp.error = t->error[0] ? t->error : curl_easy_strerror(msg->data.result);
    }
    curl_multi_remove_handle(m, easy);
    curl_slist_free_all(t->headers);
    t->headers = nullptr;
    idle_handles_.push_back(easy);
    --active_;
    ++completed_;
    auto done = std::move(t->done);
    done(std::move(resp));
  }
}

void http_driver::poll(clock::duration max_wait) {
  if (interrupted())
    throw interrupted_error();
  auto now = clock::now();
  while (!delayed_.empty() && delayed_.begin()->first <= now) {
    queue_.push_back(std::move(delayed_.begin()->second));
    delayed_.erase(delayed_.begin());
  }
  start_queued();
  if (curl_due_ <= clock::now()) {
    act(CURL_SOCKET_TIMEOUT, 0);
    harvest();
    start_queued();
  }

  // Wait for a socket, libcurl's next timeout or the next delayed request.
  auto until = std::min(curl_due_, clock::now() + max_wait);
  if (!delayed_.empty())
    until = std::min(until, delayed_.begin()->first);
  auto wait = std::clamp(until - clock::now(), clock::duration::zero(), max_wait);
  auto wait_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
  timespec timeout{static_cast<time_t>(wait_ns / 1'000'000'000),
                   static_cast<long>(wait_ns % 1'000'000'000)};
  epoll_event events[256];
  int ready = epoll_pwait2(epoll_, events, 256, &timeout, nullptr);
  for (int i = 0; i < ready; ++i) {
    int fd = events[i].data.fd;
    auto watched = fds_.find(fd);
    if (watched != fds_.end()) {
      watched->second();
      continue;
    }
    int flags = (events[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                (events[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                (events[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
    act(fd, flags);
  }
  if (curl_due_ <= clock::now())
    act(CURL_SOCKET_TIMEOUT, 0);
  harvest();
  start_queued();
}

bool http_driver::run_until_idle(clock::time_point deadline) {
  while (active_ > 0 || !queue_.empty() || !delayed_.empty()) {
    if (clock::now() >= deadline)
      return false;
    poll(std::chrono::milliseconds{5});
  }
  return true;
}

std::string url_escape(const std::string& segment) {
  // libcurl escapes everything but RFC 3986's unreserved characters; since
  // 7.82 it needs no handle for that.
  std::unique_ptr<char, decltype(&curl_free)> escaped{
      curl_easy_escape(nullptr, segment.data(), static_cast<int>(segment.size())),
      &curl_free};
  if (!escaped)
    throw std::runtime_error("curl_easy_escape failed (out of memory)");
  return escaped.get();
}

} // namespace simsync::load
