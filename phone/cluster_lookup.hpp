#pragma once

#include <string>

namespace simsync::phone {

/// The gateway URL of a carrier of the local deployment that tools/cluster
/// runs, from `tools/cluster status --json [--configs DIR]`: the carrier
/// `carrier`, or the first one if it is empty (config::local_deployment_status).
/// An empty `configs` is tools/cluster's default folder.
std::string gateway_from_cluster(const std::string& carrier, const std::string& configs);

} // namespace simsync::phone
