#pragma once

// The three CAF actor systems of a node (cluster, federation, links), and
// why there are three.
//
// CAF 0.17 lets any node connected over BASP send a message to any actor
// whose handle was ever sent over the wire, by guessing its id, and lets it
// name any node as the sender (routed messages carry a self-declared source).
// So no actor may be trusted to check "who is calling": what a peer carrier
// must not reach has to live where a peer carrier cannot connect at all.
// - The cluster system holds the node's shards, router, gateway and
//   supervisor. Its port (the node's `cluster` address) takes TLS
//   connections with certificates of the carrier's own cluster CA only:
//   the carrier's other nodes.
// - The federation system holds the federation endpoint. Its port (the
//   node's `federation` address) takes certificates of the federation's CA:
//   peer carriers, who reach only the endpoint, which takes nothing but
//   signed batches.
// - The links system holds the peer links, which connect out to peer
//   carriers' federation ports with the same certificate. It is apart from
//   the federation system so that two actor systems never connect to each
//   other both ways: CAF 0.17 closes one of two such connections as
//   "redundant", and when both sides connect at once each may close its own,
//   which drops the link again and again (seen: links flapping between up
//   and down at every start).
// Every actor that receives messages from another system is detached, so
// that each runs on its own thread and never on another system's scheduler.

#include "config/node_config.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/error.hpp>

#include <string>

namespace simsync {

enum class node_system { cluster, federation, links };

/// One of a node's actor systems: the project's message types, BASP
/// heartbeats, one scheduler thread (whatever blocks or takes long is
/// detached), and TLS with the node's identity for that system: the cluster
/// system has no TLS when the node has no cluster address (a lone node,
/// which opens no cluster port); the federation and links systems have the
/// federation identity.
class node_system_config : public caf::actor_system_config {
public:
  node_system_config(const config::node_config& cfg, node_system which);
};

/// The three systems of a running node.
struct node_systems {
  caf::actor_system& cluster;
  caf::actor_system& federation;
  caf::actor_system& links;
};

/// Loads an identity's files as CAF will on each connection (which aborts the
/// process when one does not load): the certificate chain, the private key
/// that must match it, and the CA. An error names the file and what is wrong.
/// `what` names the identity in the message ("federation", "cluster").
caf::error check_tls_identity(const config::tls_identity& tls, const std::string& what);

} // namespace simsync
