#include "core/line_id.hpp"

namespace simsync::core {

std::string line_id_of(const keyring& keys, std::string_view msisdn) {
  return keys.lookup_hash("msisdn", msisdn);
}

std::string iccid_hash_of(const keyring& keys, std::string_view iccid) {
  return keys.lookup_hash("iccid", iccid);
}

} // namespace simsync::core
