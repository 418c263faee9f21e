#pragma once

#include "core/digest.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::core {

/// A carrier's keys for data at rest: the seal keys by id (AES-256-GCM, 32
/// bytes each), the one that seals new values, and the lookup key of the keyed
/// hashes that stand for MSISDNs and ICCIDs in the store.
///
/// A sealed value names its key, so a carrier rotates by adding a key, making
/// it the writer, re-sealing what the old one sealed, then dropping the old
/// one; values sealed by any key in the ring open meanwhile. The lookup key is
/// not rotated that way: its hashes are the store's index (docs/architecture.md, trust
/// model).
class keyring {
public:
  using key_id = std::uint16_t;

  /// Bytes a sealed value adds to its plaintext: a 3-byte head (format, key
  /// id), a 12-byte nonce and a 16-byte tag.
  static constexpr std::size_t overhead = 3 + 12 + 16;

  keyring() = default;

  /// Throws std::invalid_argument if `seal_keys` is empty, a key is not 32
  /// bytes, an id is 0, `writer` is not in the ring or the lookup key is
  /// shorter than 32 bytes.
  keyring(std::map<key_id, std::string> seal_keys, key_id writer, std::string lookup_key);

  /// Seals with the writer key: format byte, key id (2 bytes, big endian),
  /// then AES-256-GCM's nonce|ciphertext|tag. The head and `context` (the
  /// account's idcode) are authenticated, so a value moved to another account
  /// or given another key id does not open. Throws std::logic_error on an
  /// empty keyring.
  std::string seal(std::string_view plaintext, std::string_view context) const;

  /// seal()'s bytes appended to `out` (a batch's string, kept from card to
  /// card).
  void seal_into(std::string& out, std::string_view plaintext,
                 std::string_view context) const;

  /// Opens a value seal() made with any key of the ring; nullopt if it is not
  /// a sealed value, names a key the ring lacks, or was altered or moved.
  std::optional<std::string> open(std::string_view sealed,
                                  std::string_view context) const;

  /// open()'s plaintext appended to `out`; false, with `out` as it was, where
  /// open() gives nullopt.
  bool open_into(std::string& out, std::string_view sealed,
                 std::string_view context) const;

  /// The id of the key that sealed `sealed`; nullopt if it is not a sealed value.
  static std::optional<key_id> key_of(std::string_view sealed);

  /// A keyed hash (HMAC-SHA-256 under the lookup key) of `value` in `domain`
  /// ("msisdn", "iccid"...): 22 characters of base64url (128 bits) that find a
  /// value without storing it. Deterministic across the carrier's nodes.
  std::string lookup_hash(std::string_view domain, std::string_view value) const;

  key_id writer() const { return writer_; }
  bool holds(key_id id) const { return seal_keys_.count(id) != 0; }
  const std::map<key_id, std::string>& seal_keys() const { return seal_keys_; }
  const std::string& lookup_key() const { return lookup_key_; }
  bool empty() const { return seal_keys_.empty(); }

private:
  std::map<key_id, std::string> seal_keys_;
  key_id writer_ = 0;
  std::string lookup_key_;
  std::optional<hmac_sha256_key> lookup_mac_; ///< under lookup_key_, once set
};

/// A node's current keyring, replaced whole when its keys rotate. Readers
/// take a snapshot per use, so a value is sealed and its head written under
/// one ring even while another thread replaces it.
///
/// A write holds the snapshot it sealed with until Redis has answered it, so
/// the node can tell when nothing sealed under an older writer is still on
/// its way to Redis: a re-seal pass that starts before then could miss what
/// lands after it has looked (key rotation waits for it).
class shared_keyring {
public:
  explicit shared_keyring(keyring ring)
      : ring_(std::make_shared<const keyring>(std::move(ring))) {}

  std::shared_ptr<const keyring> current() const { return std::atomic_load(&ring_); }
  void replace(keyring ring);

  /// How many rings replaced since, whose writer is not the current ring's,
  /// something still holds: writes sealed with them and not yet answered.
  std::size_t older_writers_in_use() const;

private:
  std::shared_ptr<const keyring> ring_;
  mutable std::mutex retired_mutex_;
  mutable std::vector<std::weak_ptr<const keyring>> retired_;
};

} // namespace simsync::core
