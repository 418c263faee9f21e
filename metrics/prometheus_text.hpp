#pragma once

#include "metrics/node_snapshot.hpp"

#include <string>

namespace simsync::metrics {

/// /metrics: a snapshot in the Prometheus text exposition format, built with
/// prometheus-cpp. Every series carries the node's carrier and node labels.
std::string to_prometheus(const node_snapshot& snapshot);

} // namespace simsync::metrics
