#pragma once

#include "store/redis_client.hpp"

#include <caf/expected.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace simsync::store {

/// One batch of stamped changes for one account, waiting for a peer carrier.
/// Written by the upload and add_sibling scripts in the same transaction as
/// the store change it carries, so nothing acknowledged is lost.
struct outbox_entry {
  std::string id;     ///< stream id, increasing: the peer acknowledges through it
  std::string idcode; ///< the account at the peer
  std::string batch;  ///< netstrings of uid, record pairs (replicate_in's input)
};

/// Up to `count` entries for `peer` after stream id `after` ("0-0" for the start).
caf::expected<std::vector<outbox_entry>>
read_outbox(redis_client& redis, const std::string& peer, const std::string& after,
            std::size_t count);

/// Removes every entry up to and including `through` once the peer has
/// persisted them. Returns how many were removed.
caf::expected<std::size_t> trim_outbox(redis_client& redis, const std::string& peer,
                                       const std::string& through);

/// Entries waiting for `peer`.
caf::expected<std::size_t> outbox_depth(redis_client& redis, const std::string& peer);

} // namespace simsync::store
