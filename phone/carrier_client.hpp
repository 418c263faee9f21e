#pragma once
// The terminal HTTP API of a carrier (docs/openapi.json), as the phone calls it.

#include "phone/error.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace simsync::phone {

/// The carrier held a snapshot that would remove much of the book (409
/// mass-deletion): nothing was stored until the phone confirms the removals.
struct mass_deletion_held : std::runtime_error {
  mass_deletion_held(const std::string& detail, std::uint64_t would_remove,
                     std::uint64_t book_size)
      : std::runtime_error(detail), would_remove(would_remove), book_size(book_size) {}
  std::uint64_t would_remove;
  std::uint64_t book_size;
};

/// The carrier answered with an error status (not 2xx): what() is the one
/// line the phone prints ("push refused (403 Forbidden): <detail>"); the
/// rest lets a verb say more.
struct carrier_refusal : phone_error {
  carrier_refusal(const std::string& message, int status, nlohmann::json problem,
                  int retry_after_s)
      : phone_error(message, exit_failure), status(status), problem(std::move(problem)),
        retry_after_s(retry_after_s) {}
  int status;
  nlohmann::json problem; ///< the problem+json body; null when there was none
  int retry_after_s;      ///< Retry-After in seconds; 0 when absent
  /// The problem's slug: "not-eligible" of "urn:simsync:problem:not-eligible".
  std::string slug() const;
};

/// Blocking calls to one carrier's gateway for one line. Each call returns
/// the answer or throws phone_error with one line that says what failed:
/// "push refused (403 Forbidden): <detail>" or
/// "cannot reach carrier at http://…: connection refused".
class carrier_client {
public:
  /// `gateway` is "http://host:port"; `token` may be empty before registration.
  carrier_client(std::string gateway, std::string msisdn, std::string token);

  /// POST /v1/register: asks the carrier to text a registration code to the
  /// SIM's number (202 {"expires_in",...}).
  nlohmann::json request_code(const std::string& msisdn, const std::string& iccid);
  /// POST /v1/register/verify: the code for the token ({"token","idcode",
  /// "account_created"}).
  nlohmann::json verify_code(const std::string& msisdn, const std::string& code);
  /// PUT the whole book (a snapshot) to the shared or private store,
  /// confirming up to `confirm_removals` removals; throws mass_deletion_held
  /// when the carrier holds it for more.
  nlohmann::json upload(const std::string& book, bool private_scope,
                        std::uint64_t confirm_removals = 0);
  /// A page of the history of the shared store or the private backup.
  nlohmann::json history(bool private_scope, int limit, const std::string& next);
  /// The restore of the book to an RFC 3339 instant, or its preview.
  nlohmann::json restore(const std::string& at, bool private_scope, bool preview);
  nlohmann::json update();
  /// One page of the pending fetch: at most `limit` changes (0: all), the
  /// fetch's first page when `next` is empty, else the page it names.
  nlohmann::json pending(std::uint32_t limit = 0, const std::string& next = "");
  void ack(const std::string& cursor, const std::string& decision);
  /// The line's stored cards (vCard text) of the shared or private store.
  std::string contacts(bool private_scope);

private:
  std::string send(const std::string& action, const std::string& method,
                   const std::string& path, const std::string& body = "",
                   const std::string& content_type = "");
  nlohmann::json send_json(const std::string& action, const std::string& method,
                           const std::string& path, const std::string& body = "",
                           const std::string& content_type = "");
  std::string line_path(const std::string& rest) const;

  std::string gateway_;
  std::string msisdn_;
  std::string token_;
};

} // namespace simsync::phone
