#pragma once

// Where the local deployment is: what `tools/cluster status --json` says.
// Every tool that talks to a deployment (phone, loadtest) finds the one
// tools/cluster runs this way when it is given no address.

#include <nlohmann/json.hpp>

#include <string>

namespace simsync::config {

/// The output of `tools/cluster status --json [--configs DIR]`, with at least
/// one carrier. The script is $SIMSYNC_CLUSTER if set, else the source tree's
/// tools/cluster, else (installed from the package) simsync-cluster beside
/// the running program. Throws std::runtime_error, its message ending with `hint`
/// (how to start the deployment or name it instead), when the script fails or
/// prints no carriers.
nlohmann::json local_deployment_status(const std::string& configs,
                                       const std::string& hint);

} // namespace simsync::config
