#include "net/sms_gateway.hpp"

#include <filesystem>
#include <stdexcept>

namespace simsync::net {

std::string sms_file_path(const std::string& data_dir) {
  return (std::filesystem::path{data_dir} / "sms.ndjson").string();
}

std::shared_ptr<sms_gateway> make_sms_gateway(const config::sms_settings& s,
                                              const std::string& data_dir) {
  if (s.kind == "none")
    return nullptr;
  if (s.kind == "file")
    return make_file_sms_gateway(sms_file_path(data_dir));
  if (s.kind == "http")
    return make_http_sms_gateway(s);
  throw std::invalid_argument("sms: unknown kind \"" + s.kind +
                              "\" (expected none, file or http)");
}

} // namespace simsync::net
