#include "net/admin_auth.hpp"

#include "net/token.hpp"

#include <openssl/crypto.h>

namespace simsync::net {

bool admin_authorized(const exchange_ptr& ex) {
  const auto& key = ex->ctx().admin_key;
  if (key.empty()) {
    ex->fail(problem{403, "admin-disabled", "Admin requests are disabled",
                     "this node has no [admin] key_file configured"});
    return false;
  }
  auto header = ex->request().header().opt_value_of(restinio::http_field::authorization);
  std::string_view value = header ? std::string_view(header->data(), header->size()) : "";
  constexpr std::string_view scheme = "Bearer ";
  if (value.substr(0, scheme.size()) != scheme) {
    ex->fail(problem{401, "unauthorized", "The admin credential is required",
                     "send Authorization: Bearer <the key in [admin] key_file>"});
    return false;
  }
  // Equal-length digests, compared in constant time: neither the key's
  // length nor its bytes show in the timing.
  auto given = sha256_hex(value.substr(scheme.size()));
  auto want = sha256_hex(key);
  if (CRYPTO_memcmp(given.data(), want.data(), want.size()) != 0) {
    problem p{401, "invalid_token", "The admin credential is not valid",
              "the bearer token is not this node's admin key"};
    p.headers.emplace_back("WWW-Authenticate", "Bearer error=\"invalid_token\"");
    ex->fail(p);
    return false;
  }
  return true;
}

} // namespace simsync::net
