#pragma once

#include <string>

namespace simsync::phone {

/// The gateway URL of a carrier of the local deployment that tools/cluster
/// runs, from `tools/cluster status --json`: the carrier `carrier`, or the
/// first one if it is empty. The script is $SIMSYNC_CLUSTER if set, else the
/// source tree's tools/cluster.
std::string gateway_from_cluster(const std::string& carrier);

} // namespace simsync::phone
