#include "phone/state.hpp"

#include "phone/error.hpp"
#include "phone/file_io.hpp"

#include <nlohmann/json.hpp>

namespace simsync::phone {

std::string state_path(const std::string& book_path) {
  return book_path + ".state.json";
}

phone_state load_state(const std::string& path) {
  phone_state state;
  auto text = read_file(path);
  if (!text)
    return state;
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    throw failure(path + " is not a phone state file (not a JSON object)");
  state.gateway = json.value("gateway", "");
  state.msisdn = json.value("msisdn", "");
  state.token = json.value("token", "");
  state.idcode = json.value("idcode", "");
  state.cursor = json.value("cursor", "");
  auto base = json.value("base", nlohmann::json::object());
  for (const auto& [uid, hex] : base.items()) {
    core::content_hash hash;
    if (!hex.is_string() || !core::content_hash::from_hex(hex.get<std::string>(), &hash))
      throw failure(path + ": base hash of " + uid + " is not 32 hex digits");
    state.base.emplace(uid, hash);
  }
  return state;
}

void save_state(const std::string& path, const phone_state& state) {
  auto base = nlohmann::json::object();
  for (const auto& [uid, hash] : state.base)
    base[uid] = hash.hex();
  nlohmann::json json{{"gateway", state.gateway}, {"msisdn", state.msisdn},
                      {"token", state.token},     {"idcode", state.idcode},
                      {"cursor", state.cursor},   {"base", std::move(base)}};
  write_file_atomically(path, json.dump(2) + "\n");
}

} // namespace simsync::phone
