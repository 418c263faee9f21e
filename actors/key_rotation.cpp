#include "actors/key_rotation.hpp"

#include "config/keyring_file.hpp"
#include "core/error.hpp"
#include "store/reseal.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <chrono>
#include <optional>

namespace simsync {

struct key_rotation::progress {
  mutable std::mutex mutex;
  key_rotation_status status; ///< its writer and keys are filled in by status()
  /// What the running pass has left so far; `status.left` once it is over.
  std::map<core::keyring::key_id, std::uint64_t> pass_left;
};

namespace {

using progress_ptr = std::shared_ptr<key_rotation::progress>;

/// How long a pass waits for writes sealed under an older writer, and how
/// often it looks: a write is answered in well under a second, unless Redis
/// is away (then the pass could not run anyway).
constexpr auto wait_for_older_writes = std::chrono::seconds{60};
constexpr auto older_writes_poll = std::chrono::milliseconds{20};

/// One pass: each message is a SCAN cursor; "0" after the first step ends it.
caf::behavior reseal_pass(caf::event_based_actor* self, store::redis_endpoint redis_at,
                          std::shared_ptr<const core::shared_keyring> keys,
                          progress_ptr progress) {
  auto redis = std::make_shared<std::optional<store::redis_client>>();
  auto started = std::make_shared<bool>(false);
  auto give_up = std::chrono::steady_clock::now() + wait_for_older_writes;
  auto finish = [self, progress](std::string error) {
    std::lock_guard<std::mutex> lock{progress->mutex};
    auto& s = progress->status;
    s.running = s.waiting = false;
    s.last_error = std::move(error);
    if (s.last_error.empty())
      ++s.passes;
    self->quit();
  };
  return {[=](const std::string& cursor) {
    if (!*started) {
      auto unanswered = keys->older_writers_in_use();
      {
        std::lock_guard<std::mutex> lock{progress->mutex};
        progress->status.waiting = unanswered > 0;
        progress->status.pass_writer = keys->current()->writer();
      }
      if (unanswered > 0 && std::chrono::steady_clock::now() < give_up) {
        self->delayed_send(self, older_writes_poll, cursor);
        return;
      }
      if (unanswered > 0)
        return finish("writes sealed under an older writer were still unanswered after " +
                      std::to_string(wait_for_older_writes.count()) +
                      " s; start the pass again");
      *started = true;
    }
    if (!*redis) {
      auto client = store::redis_client::connect(redis_at);
      if (!client)
        return finish(describe(client.error()));
      redis->emplace(std::move(*client));
    }
    auto step = store::reseal_step_at(**redis, *keys->current(), cursor);
    if (!step)
      return finish(describe(step.error()));
    {
      std::lock_guard<std::mutex> lock{progress->mutex};
      auto& s = progress->status;
      s.scanned += step->scanned;
      s.resealed += step->resealed;
      s.changed += step->changed;
      for (auto [id, n] : step->left)
        progress->pass_left[id] += n;
    }
    if (step->cursor == "0") {
      std::lock_guard<std::mutex> lock{progress->mutex};
      progress->status.left = std::move(progress->pass_left);
      progress->pass_left.clear();
    } else {
      self->send(self, step->cursor);
      return;
    }
    finish({});
  }};
}

} // namespace

key_rotation::key_rotation(caf::actor_system& sys,
                           std::shared_ptr<core::shared_keyring> keys,
                           std::string keyring_file, store::redis_endpoint redis_at)
    : sys_(sys), keys_(std::move(keys)), keyring_file_(std::move(keyring_file)),
      redis_at_(std::move(redis_at)), progress_(std::make_shared<progress>()) {}

key_rotation::~key_rotation() {
  stop();
}

std::string key_rotation::reload() {
  try {
    keys_->replace(config::read_keyring_file(keyring_file_));
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

bool key_rotation::start_pass() {
  {
    std::lock_guard<std::mutex> lock{progress_->mutex};
    auto& s = progress_->status;
    if (s.running)
      return false;
    s.running = true;
    s.scanned = s.resealed = s.changed = 0;
    progress_->pass_left.clear();
    s.last_error.clear();
  }
  // Detached: each step blocks on Redis (hiredis' sync API).
  pass_ = sys_.spawn<caf::detached>(reseal_pass, redis_at_,
                                    std::shared_ptr<const core::shared_keyring>{keys_},
                                    progress_);
  caf::anon_send(pass_, std::string("0"));
  return true;
}

key_rotation_status key_rotation::status() const {
  auto ring = keys_->current();
  std::lock_guard<std::mutex> lock{progress_->mutex};
  auto out = progress_->status;
  out.writer = ring->writer();
  out.keys.clear();
  for (const auto& [id, key] : ring->seal_keys())
    out.keys.push_back(id);
  return out;
}

void key_rotation::stop() {
  if (pass_)
    caf::anon_send_exit(pass_, caf::exit_reason::user_shutdown);
  pass_ = nullptr;
}

} // namespace simsync
