#pragma once

#include "actors/actors.hpp"
#include "core/signature.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace simsync {

struct federation_state {
  static inline const char* name = "federation";

  std::string carrier; ///< this carrier: the only destination it accepts
  /// Each peer carrier's public key: who may send, and how to tell it is them.
  std::map<std::string, core::signature_key> peers;
  router_actor router;
  std::uint64_t processed = 0;                  ///< entries of accepted batches
  std::map<std::string, std::uint64_t> refused; ///< batches, by reason
};

/// A node's federation endpoint, published on its federation port in the
/// node's federation actor system (TLS, certificates of the federation's CA
/// on both sides). It is the only actor a peer carrier reaches: it checks who
/// signed each batch and hands the entries of a good one to the router (in
/// the node's cluster actor system), relaying the router's acknowledgement.
/// Spawn detached: it talks across the two actor systems (see node.hpp).
federation_actor::behavior_type
federation(federation_actor::stateful_pointer<federation_state> self, std::string carrier,
           std::map<std::string, core::signature_key> peers, router_actor router);

} // namespace simsync
