#include "load/deployment.hpp"

#include "config/local_deployment.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>

namespace simsync::load {

const carrier_info* deployment::find(const std::string& id) const {
  for (const auto& c : carriers)
    if (c.id == id)
      return &c;
  return nullptr;
}

store::redis_endpoint redis_endpoint_of(const carrier_info& c, std::size_t i) {
  auto where = store::redis_endpoint::parse(c.redis.at(i));
  if (!where)
    throw std::runtime_error("carrier " + c.id + ": bad Redis address " + c.redis.at(i));
  if (i >= c.redis_logins.size() || c.redis_logins[i].password_file.empty())
    return *where;
  const auto& login = c.redis_logins[i];
  std::ifstream in(login.password_file, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read the Redis password file " +
                             login.password_file + " (for " + login.user + " at " +
                             c.redis[i] + ")");
  std::string password{std::istreambuf_iterator<char>{in}, {}};
  if (!password.empty() && password.back() == '\n')
    password.pop_back();
  if (!password.empty() && password.back() == '\r')
    password.pop_back();
  if (password.empty())
    throw std::runtime_error("the Redis password file " + login.password_file +
                             " holds no password");
  where->user = login.user;
  where->password = std::move(password);
  return *where;
}

bool deployment::has_redis() const {
  if (carriers.empty())
    return false;
  for (const auto& c : carriers)
    if (c.redis.empty())
      return false;
  return true;
}

bool deployment::has_mailbox_keys() const {
  return has_redis() && std::all_of(carriers.begin(), carriers.end(), [](const auto& c) {
           return !c.seal_key_file.empty();
         });
}

namespace {

std::string trim_slash(std::string url) {
  while (!url.empty() && url.back() == '/')
    url.pop_back();
  return url;
}

/// "a=x,b=y" as pairs; throws naming `what` when an item has no '='.
std::vector<std::pair<std::string, std::string>> pairs_of(const std::string& list,
                                                          const std::string& what) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos < list.size()) {
    auto comma = list.find(',', pos);
    if (comma == std::string::npos)
      comma = list.size();
    auto item = list.substr(pos, comma - pos);
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::runtime_error(what + ": expected CARRIER=ADDRESS, got '" + item + "'");
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    pos = comma + 1;
  }
  if (out.empty())
    throw std::runtime_error(what + ": empty list");
  return out;
}

} // namespace

deployment deployment_from_json(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("carriers") || !json["carriers"].is_array())
    throw std::runtime_error("deployment JSON: no \"carriers\" array");
  deployment d;
  for (const auto& c : json["carriers"]) {
    carrier_info info;
    info.id = c.value("id", "");
    info.gateway = trim_slash(c.value("gateway", ""));
    if (info.id.empty() || info.gateway.empty())
      throw std::runtime_error("deployment JSON: a carrier lacks \"id\" or \"gateway\"");
    auto text = [](const nlohmann::json& j, const char* key) {
      return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
    };
    auto login = [&](const nlohmann::json& j) {
      return redis_login{text(j, "redis_user"), text(j, "redis_password_file")};
    };
    if (c.contains("redis") && c["redis"].is_string()) {
      info.redis.push_back(c["redis"].get<std::string>());
      info.redis_logins.push_back(login(c));
    }
    info.admin = trim_slash(text(c, "admin"));
    info.admin_key_file = text(c, "admin_key_file");
    info.seal_key_file = text(c, "seal_key_file");
    if (c.contains("nodes") && c["nodes"].is_array())
      for (const auto& n : c["nodes"]) {
        if (info.admin.empty())
          info.admin = trim_slash(text(n, "admin"));
        if (auto sms = text(n, "sms_file"); !sms.empty())
          info.sms_files.push_back(sms);
        if (n.contains("redis") && n["redis"].is_string()) {
          info.redis.push_back(n["redis"].get<std::string>());
          info.redis_logins.push_back(login(n));
        }
        if (n.contains("pid") && n["pid"].is_number_integer())
          info.carrierd_pids.push_back(n["pid"].get<int>());
        if (n.contains("redis_pid") && n["redis_pid"].is_number_integer())
          info.redis_pids.push_back(n["redis_pid"].get<int>());
      }
    d.carriers.push_back(std::move(info));
  }
  if (d.carriers.empty())
    throw std::runtime_error("deployment JSON: no carriers");
  return d;
}

deployment deployment_from_cluster(const std::string& configs) {
  auto hint = " (start it with tools/cluster up, or pass --gateway / --deployment)";
  auto json = config::local_deployment_status(configs, hint);
  auto d = deployment_from_json(json);
  // A node that is down has no pid; the deployment must be up to be loaded.
  for (const auto& c : json["carriers"])
    for (const auto& n : c.value("nodes", nlohmann::json::array()))
      if (!n.value("up", false))
        throw std::runtime_error("carrier " + c.value("id", "?") + " node " +
                                 n.value("id", "?") + " is down" + hint);
  return d;
}

deployment deployment_from_gateways(const std::string& list) {
  deployment d;
  for (auto& [id, url] : pairs_of(list, "--gateway")) {
    if (d.find(id))
      throw std::runtime_error("--gateway: carrier " + id + " named twice");
    d.carriers.push_back(
        carrier_info{id, trim_slash(url), {}, {}, {}, "", "", {}, {}, ""});
  }
  return d;
}

namespace {

/// Calls `add` for each pair of `list` with the carrier it names.
void add_each(deployment& d, const std::string& list, const std::string& what,
              const std::function<void(carrier_info&, std::string)>& add) {
  for (auto& [id, value] : pairs_of(list, what)) {
    auto it = std::find_if(d.carriers.begin(), d.carriers.end(),
                           [&](const carrier_info& c) { return c.id == id; });
    if (it == d.carriers.end())
      throw std::runtime_error(what + ": no carrier " + id + " in the deployment");
    add(*it, std::move(value));
  }
}

} // namespace

void add_redis(deployment& d, const std::string& list) {
  add_each(d, list, "--redis",
           [](carrier_info& c, std::string v) { c.redis.push_back(std::move(v)); });
}

void set_redis_login(deployment& d, const redis_login& login) {
  for (auto& c : d.carriers)
    c.redis_logins.assign(c.redis.size(), login);
}

void add_admin(deployment& d, const std::string& list) {
  add_each(d, list, "--admin",
           [](carrier_info& c, std::string v) { c.admin = trim_slash(std::move(v)); });
}

void add_admin_keys(deployment& d, const std::string& list) {
  add_each(d, list, "--admin-key",
           [](carrier_info& c, std::string v) { c.admin_key_file = std::move(v); });
}

void add_sms_files(deployment& d, const std::string& list) {
  add_each(d, list, "--sms-file",
           [](carrier_info& c, std::string v) { c.sms_files.push_back(std::move(v)); });
}

} // namespace simsync::load
