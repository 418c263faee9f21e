#include "core/keyring.hpp"

#include "core/base64url.hpp"
#include "core/digest.hpp"
#include "core/seal.hpp"

#include <algorithm>
#include <stdexcept>

namespace simsync::core {

namespace {

/// The first byte of every sealed value: AES-256-GCM under the key the next
/// two bytes name. A later format gets another byte.
constexpr char format_aes_gcm = '\x01';
constexpr std::size_t head_size = 3;
constexpr std::size_t min_lookup_key_size = 32;
constexpr std::size_t lookup_hash_bytes = 16;

std::string head_of(keyring::key_id id) {
  return {format_aes_gcm, static_cast<char>(id >> 8), static_cast<char>(id & 0xff)};
}

/// What GCM authenticates besides the ciphertext: the head (so a value cannot
/// be relabelled with another key id) and the context. Built in the thread's
/// own string, which every card sealed or opened on the thread reuses.
std::string_view associated_data(std::string_view head, std::string_view context) {
  thread_local std::string aad;
  aad.assign(head);
  aad.append(context);
  return aad;
}

} // namespace

keyring::keyring(std::map<key_id, std::string> seal_keys, key_id writer,
                 std::string lookup_key)
    : seal_keys_(std::move(seal_keys)), writer_(writer),
      lookup_key_(std::move(lookup_key)) {
  if (seal_keys_.empty())
    throw std::invalid_argument("keyring: no seal key");
  for (const auto& [id, key] : seal_keys_) {
    if (id == 0)
      throw std::invalid_argument("keyring: key id 0 is not allowed");
    if (key.size() != seal_key_size)
      throw std::invalid_argument("keyring: seal key " + std::to_string(id) +
                                  " is not 32 bytes");
  }
  if (!holds(writer_))
    throw std::invalid_argument("keyring: the writer key " + std::to_string(writer_) +
                                " is not in the ring");
  if (lookup_key_.size() < min_lookup_key_size)
    throw std::invalid_argument("keyring: the lookup key must be at least 32 bytes");
  lookup_mac_.emplace(lookup_key_);
}

std::string keyring::seal(std::string_view plaintext, std::string_view context) const {
  std::string out;
  seal_into(out, plaintext, context);
  return out;
}

void keyring::seal_into(std::string& out, std::string_view plaintext,
                        std::string_view context) const {
  if (empty())
    throw std::logic_error("keyring: sealing with an empty keyring");
  auto head = head_of(writer_);
  auto at = out.size();
  out += head;
  try {
    core::seal_into(out, seal_keys_.at(writer_), plaintext,
                    associated_data(head, context));
  } catch (...) {
    out.resize(at);
    throw;
  }
}

std::optional<std::string> keyring::open(std::string_view sealed,
                                         std::string_view context) const {
  std::string out;
  if (!open_into(out, sealed, context))
    return std::nullopt;
  return out;
}

bool keyring::open_into(std::string& out, std::string_view sealed,
                        std::string_view context) const {
  auto id = key_of(sealed);
  if (!id)
    return false;
  auto key = seal_keys_.find(*id);
  if (key == seal_keys_.end())
    return false;
  return core::open_into(out, key->second, sealed.substr(head_size),
                         associated_data(sealed.substr(0, head_size), context));
}

std::optional<keyring::key_id> keyring::key_of(std::string_view sealed) {
  if (sealed.size() < overhead || sealed[0] != format_aes_gcm)
    return std::nullopt;
  auto id = static_cast<key_id>((static_cast<unsigned char>(sealed[1]) << 8) |
                                static_cast<unsigned char>(sealed[2]));
  if (id == 0)
    return std::nullopt;
  return id;
}

std::string keyring::lookup_hash(std::string_view domain, std::string_view value) const {
  if (!lookup_mac_)
    throw std::logic_error("keyring: lookup hash with an empty keyring");
  // The domain keeps an MSISDN's hash from ever equalling an ICCID's; the
  // separator cannot occur in a domain name.
  std::string message(domain);
  message += '\0';
  message.append(value);
  return base64url(lookup_mac_->mac(message).substr(0, lookup_hash_bytes));
}

void shared_keyring::replace(keyring ring) {
  auto next = std::make_shared<const keyring>(std::move(ring));
  std::lock_guard<std::mutex> lock{retired_mutex_};
  retired_.push_back(std::atomic_exchange(&ring_, std::move(next)));
}

std::size_t shared_keyring::older_writers_in_use() const {
  auto writer = current()->writer();
  std::lock_guard<std::mutex> lock{retired_mutex_};
  retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                [](const auto& ring) { return ring.expired(); }),
                 retired_.end());
  return static_cast<std::size_t>(
      std::count_if(retired_.begin(), retired_.end(), [writer](const auto& ring) {
        auto held = ring.lock();
        return held && held->writer() != writer;
      }));
}

} // namespace simsync::core
