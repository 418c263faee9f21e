#pragma once
// The simulated phones: persons, each with 2-3 lines at different carriers
// (every fourth person also a second line at its first line's carrier), their
// registration (setup, never timed) and the books they push.

#include "load/deployment.hpp"
#include "load/http_client.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace simsync::load {

struct line {
  std::string carrier;
  std::string gateway;
  std::string msisdn;
  std::string iccid;
  /// What the store names the line (core/line_id.hpp); empty when the
  /// carrier's keyring file is unknown.
  std::string line_id;
  std::string token; ///< after registration
};

struct person {
  std::string name;
  std::string id_number;
  std::string idcode; ///< after registration
  std::vector<line> lines;
};

/// `count` persons over the deployment's carriers. `tag` (0..9999) makes the
/// msisdns and ID numbers of one run distinct from every other run's, so each
/// run starts with new accounts and empty mailboxes. `first` numbers persons
/// (scenarios of one run use disjoint ranges).
std::vector<person> make_persons(const deployment& d, std::size_t count, unsigned tag,
                                 std::size_t first);

/// Adds every line as a subscriber of its carrier (the person's name and ID
/// number, the line's ICCID): one bulk import (NDJSON) per carrier through
/// its admin port, with its admin key. Throws std::runtime_error when a
/// carrier's admin port, key or SMS files are unknown, or an import fails.
void provision_all(http_driver& http, const deployment& d,
                   const std::vector<person>& persons);

/// Provisions the persons (provision_all), then registers every line (F1)
/// through the HTTP API as a phone does: POST /v1/register, the code read
/// from the carrier's development SMS gateway files, POST
/// /v1/register/verify. A 503 or 429 is retried after its Retry-After.
/// Throws std::runtime_error when a registration fails.
void register_all(http_driver& http, const deployment& d, std::vector<person>& persons);

/// Waits until each person's accounts know their siblings (the F1 asks were
/// answered), so the timed part never includes a bootstrap. With Redis
/// addresses it checks `dir:{idcode}` everywhere; without, it waits
/// `fallback`. Throws when the siblings are not known in `timeout`.
void wait_for_siblings(const deployment& d, const std::vector<person>& persons,
                       std::chrono::seconds timeout, std::chrono::milliseconds fallback);

/// One card as vCard 3.0 text (core::serialize), about 200 bytes: its UID,
/// a name and number derived from `serial`, and `variant` in a NOTE so a
/// new variant is a real edit of the same UID.
std::string make_card(const std::string& uid, std::uint64_t serial,
                      std::uint64_t variant);

/// The line's API path with the msisdn escaped: /v1/lines/%2B86.../rest.
std::string line_url(const line& l, const std::string& rest);

/// Lines of `p` whose mailboxes receive what line `from` pushes: every other
/// line, at the same or another carrier.
std::vector<std::size_t> sibling_lines(const person& p, std::size_t from);

} // namespace simsync::load
