#include "store/subscriber_registry.hpp"

#include "core/error.hpp"
#include "store/scripts.hpp"

#include <vector>

namespace simsync::store {

namespace {

caf::error corrupt(const char* script) {
  return caf::make_error(ec::store_corrupt,
                         std::string(script) + " answered an unexpected reply");
}

/// {count, owner}: the reply of put_subscriber and delete_subscriber.
caf::expected<std::pair<long long, std::string>> count_and_owner(caf::expected<reply> r,
                                                                 const char* script) {
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array() || v.size() != 2 || !v[0].is_integer())
    return corrupt(script);
  return std::make_pair(v[0].integer(), std::string(v[1].str()));
}

} // namespace

caf::expected<subscriber_outcome> put_subscriber(redis_client& redis,
                                                 const subscriber_record& record,
                                                 std::uint64_t now_ms) {
  auto now = std::to_string(now_ms);
  auto r = count_and_owner(
      run_script(redis, script::put_subscriber,
                 {record.line, record.iccid_hash, record.idcode, record.sealed_user_info,
                  record.active ? "1" : "0", now}),
      "put_subscriber");
  if (!r)
    return std::move(r.error());
  if (r->first < 0 || r->first > 2)
    return corrupt("put_subscriber");
  return subscriber_outcome{static_cast<subscriber_change>(r->first), r->first != 1,
                            std::move(r->second)};
}

caf::expected<subscriber_outcome> delete_subscriber(redis_client& redis,
                                                    const std::string& line) {
  auto r = count_and_owner(run_script(redis, script::delete_subscriber, {line}),
                           "delete_subscriber");
  if (!r)
    return std::move(r.error());
  return subscriber_outcome{subscriber_change::unchanged, r->first != 0,
                            std::move(r->second)};
}

caf::expected<std::uint64_t> issue_code(redis_client& redis, const code_request& req) {
  auto now = std::to_string(req.now_ms);
  auto ttl = std::to_string(req.ttl_ms);
  auto window = std::to_string(req.window_ms);
  auto most = std::to_string(req.codes_per_window);
  auto r = run_script(redis, script::issue_code,
                      {req.line, req.iccid_hash, req.code_hash, now, ttl, window, most});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array() || v.size() != 1 || !v[0].is_integer())
    return corrupt("issue_code");
  return static_cast<std::uint64_t>(v[0].integer());
}

caf::expected<verified_subscriber> verify_code(redis_client& redis,
                                               const code_check& req) {
  auto now = std::to_string(req.now_ms);
  auto most = std::to_string(req.max_attempts);
  auto r = run_script(redis, script::verify_code, {req.line, req.code_hash, now, most});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array() || v.size() != 3)
    return corrupt("verify_code");
  return verified_subscriber{std::string(v[0].str()), std::string(v[1].str()),
                             std::string(v[2].str())};
}

} // namespace simsync::store
