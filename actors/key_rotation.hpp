#pragma once

// A node's part in rotating its carrier's seal keys (store/reseal.hpp): it
// reads its keyring file again when told (every node of the carrier must
// hold a new key before any seals with it), and runs re-seal passes over its
// Redis in the background, one SCAN step per message, so it keeps serving.

#include "core/keyring.hpp"
#include "store/redis_client.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace simsync {

/// What the node's key rotation reports (GET /admin/keys).
struct key_rotation_status {
  core::keyring::key_id writer = 0;
  std::vector<core::keyring::key_id> keys;
  bool running = false; ///< a pass is under way
  /// The running pass waits, before it looks at anything, until no write
  /// sealed under an older writer is still unanswered: it could land after
  /// the pass had looked at its key.
  bool waiting = false;
  std::uint64_t passes = 0;   ///< passes finished since the node started
  std::uint64_t scanned = 0;  ///< of the running pass, or else the last one
  std::uint64_t resealed = 0; ///< same
  std::uint64_t changed = 0;  ///< same: changed by a flow meanwhile
  /// After the last finished pass: values still sealed with another key.
  std::map<core::keyring::key_id, std::uint64_t> left;
  std::string last_error; ///< why the last pass stopped early; empty if it did not
  /// The writer the last pass started under.
  core::keyring::key_id pass_writer = 0;

  /// The last pass, under the writer of now, found every value sealed with
  /// it: nothing re-sealed, changed meanwhile or left. Only then may an older
  /// key leave the ring: a value re-sealed or changed by a pass may have
  /// been copied elsewhere (history, another line's store) behind it.
  bool clean() const {
    return !running && passes > 0 && last_error.empty() && pass_writer == writer &&
           resealed == 0 && changed == 0 && left.empty();
  }
};

class key_rotation {
public:
  key_rotation(caf::actor_system& sys, std::shared_ptr<core::shared_keyring> keys,
               std::string keyring_file, store::redis_endpoint redis_at);
  ~key_rotation();

  /// Reads the keyring file again; its ring replaces the node's. Returns why
  /// not when it does not parse (the node keeps its ring); empty on success.
  std::string reload();

  /// Starts a re-seal pass unless one is running; whether it started.
  bool start_pass();

  key_rotation_status status() const;

  /// Ends a running pass (the node is stopping).
  void stop();

  /// The progress a pass reports as it steps (shared with its actor).
  struct progress;

private:
  caf::actor_system& sys_;
  std::shared_ptr<core::shared_keyring> keys_;
  std::string keyring_file_;
  store::redis_endpoint redis_at_;
  std::shared_ptr<progress> progress_;
  caf::actor pass_;
};

} // namespace simsync
