#include "phone/cluster_lookup.hpp"

#include "config/local_deployment.hpp"
#include "phone/error.hpp"

#include <nlohmann/json.hpp>

namespace simsync::phone {

std::string gateway_from_cluster(const std::string& carrier, const std::string& configs) {
  nlohmann::json json;
  try {
    json = config::local_deployment_status(
        configs, " (start it with tools/cluster up, or pass --gateway URL)");
  } catch (const std::runtime_error& e) {
    throw failure(e.what());
  }
  for (const auto& c : json["carriers"])
    if (carrier.empty() || c.value("id", "") == carrier)
      return c.value("gateway", "");
  throw usage_error("the local deployment has no carrier " + carrier);
}

} // namespace simsync::phone
