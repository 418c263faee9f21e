#pragma once

#include <string>

namespace simsync::phone {

/// The gateway URL of a carrier of the local deployment that tools/cluster
/// runs, from `tools/cluster status --json`: the carrier `carrier`, or the
/// first one if it is empty (config::local_deployment_status).
std::string gateway_from_cluster(const std::string& carrier);

} // namespace simsync::phone
