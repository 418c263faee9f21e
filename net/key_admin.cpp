#include "net/key_admin.hpp"

#include "actors/key_rotation.hpp"
#include "net/admin_auth.hpp"

namespace simsync::net {

namespace {

nlohmann::json ids_of(const std::vector<core::keyring::key_id>& keys) {
  auto out = nlohmann::json::array();
  for (auto id : keys)
    out.push_back(id);
  return out;
}

} // namespace

void handle_key_status(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  auto s = ex->ctx().rotation->status();
  nlohmann::json left = nlohmann::json::object();
  for (auto [id, n] : s.left)
    left[std::to_string(id)] = n;
  nlohmann::json reseal{{"running", s.running}, {"waiting", s.waiting},
                        {"clean", s.clean()},   {"passes", s.passes},
                        {"scanned", s.scanned}, {"resealed", s.resealed},
                        {"changed", s.changed}, {"left", left}};
  if (!s.last_error.empty())
    reseal["last_error"] = s.last_error;
  ex->reply_json(200,
                 {{"writer", s.writer}, {"keys", ids_of(s.keys)}, {"reseal", reseal}});
}

void handle_key_reload(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  auto& rotation = *ex->ctx().rotation;
  if (auto why = rotation.reload(); !why.empty())
    return ex->fail(problem{400, "keyring-unreadable", "The keyring file does not parse",
                            why + "; the node keeps its keys"});
  auto s = rotation.status();
  ex->reply_json(200, {{"writer", s.writer}, {"keys", ids_of(s.keys)}});
}

void handle_key_reseal(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  ex->reply_json(202, {{"started", ex->ctx().rotation->start_pass()}});
}

} // namespace simsync::net
