#include "config/keyring_file.hpp"

#include "core/digest.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace simsync::config {

namespace {

constexpr std::size_t key_size = 32;

struct keyring_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string_view without_newlines(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

/// 64 hex digits as 32 bytes; nullopt otherwise.
std::optional<std::string> key_of_hex(std::string_view text) {
  if (text.size() != 2 * key_size)
    return std::nullopt;
  return core::bytes_of_hex(text);
}

/// The lookup key of a ring that names none: HMAC-SHA-256 of a fixed label
/// under its key 1. Changing the label would move every stored lookup hash.
std::string derived_lookup_key(const std::string& key_one) {
  return core::hmac_sha256(key_one, "simsync lookup key v1");
}

/// A one-key file: 32 raw bytes, or 64 hex digits and perhaps a newline.
std::optional<core::keyring> single_key(std::string_view text) {
  std::optional<std::string> key;
  if (text.size() == key_size)
    key = std::string(text);
  else
    key = key_of_hex(without_newlines(text));
  if (!key)
    return std::nullopt;
  auto lookup = derived_lookup_key(*key);
  return core::keyring({{1, *key}}, 1, lookup);
}

core::keyring toml_keyring(std::string_view text) {
  toml::table doc;
  try {
    doc = toml::parse(text);
  } catch (const toml::parse_error& e) {
    throw keyring_error("expected 32 raw bytes, 64 hex digits or a TOML keyring (" +
                        std::string(e.description()) + ")");
  }
  for (const auto& [name, value] : doc) {
    if (name != "writer" && name != "lookup" && name != "keys")
      throw keyring_error("unknown setting \"" + std::string(name.str()) +
                          "\" (a keyring holds writer, lookup and [keys])");
  }
  const auto* keys = doc["keys"].as_table();
  if (!keys || keys->empty())
    throw keyring_error("a keyring needs a [keys] table with at least one key");
  std::map<core::keyring::key_id, std::string> seal_keys;
  for (const auto& [name, value] : *keys) {
    unsigned id = 0;
    auto digits = name.str();
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (err != std::errc{} || end != digits.data() + digits.size() || id < 1 ||
        id > 65535)
      throw keyring_error("keys." + std::string(digits) +
                          ": a key id is a whole number from 1 to 65535");
    auto hex = value.value<std::string>();
    auto key = hex ? key_of_hex(*hex) : std::nullopt;
    if (!key)
      throw keyring_error("keys." + std::string(digits) + ": expected 64 hex digits");
    seal_keys.emplace(static_cast<core::keyring::key_id>(id), *key);
  }
  auto writer = doc["writer"].value<std::int64_t>();
  if (!writer)
    throw keyring_error("writer: required, the id of the key that seals new values");
  if (*writer < 1 || *writer > 65535 ||
      !seal_keys.count(static_cast<core::keyring::key_id>(*writer)))
    throw keyring_error("writer: " + std::to_string(*writer) + " is not a key of [keys]");
  std::string lookup;
  if (auto node = doc["lookup"]; node) {
    auto hex = node.value<std::string>();
    auto key = hex ? key_of_hex(*hex) : std::nullopt;
    if (!key)
      throw keyring_error("lookup: expected 64 hex digits");
    lookup = *key;
  } else if (seal_keys.count(1)) {
    lookup = derived_lookup_key(seal_keys.at(1));
  } else {
    throw keyring_error("lookup: required when [keys] has no key 1 to derive it from");
  }
  return core::keyring(std::move(seal_keys), static_cast<core::keyring::key_id>(*writer),
                       std::move(lookup));
}

} // namespace

core::keyring parse_keyring(std::string_view text) {
  if (auto one = single_key(text))
    return *one;
  return toml_keyring(text);
}

core::keyring read_keyring_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path.string() + ": cannot be read");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    return parse_keyring(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

} // namespace simsync::config
