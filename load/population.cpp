#include "load/population.hpp"

#include "config/keyring_file.hpp"
#include "core/line_id.hpp"
#include "core/vcard.hpp"
#include "load/progress.hpp"
#include "load/sms_inbox.hpp"
#include "store/keys.hpp"
#include "store/redis_client.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

namespace simsync::load {

namespace {

std::string digits(std::uint64_t value, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llu", width, static_cast<unsigned long long>(value));
  return buf;
}

line make_line(const carrier_info& c, const std::optional<core::keyring>& keys,
               unsigned tag, std::size_t person, std::size_t index) {
  line l;
  l.carrier = c.id;
  l.gateway = c.gateway;
  // +86 1 TTTT PPPPPP L: 13 digits after '+', unique per run tag, person, line.
  l.msisdn = "+861" + digits(tag % 10000, 4) + digits(person % 1000000, 6) +
             digits(index % 10, 1);
  l.iccid = "8986" + digits(tag % 10000, 4) + digits(person % 1000000, 6) +
            digits(index % 10, 1) + "000";
  if (keys)
    l.line_id = core::line_id_of(*keys, l.msisdn);
  return l;
}

/// Each carrier's keyring, where the deployment names its file.
std::vector<std::optional<core::keyring>> keyrings_of(const deployment& d) {
  std::vector<std::optional<core::keyring>> out;
  for (const auto& c : d.carriers)
    out.push_back(c.seal_key_file.empty()
                      ? std::nullopt
                      : std::optional(config::read_keyring_file(c.seal_key_file)));
  return out;
}

} // namespace

std::vector<person> make_persons(const deployment& d, std::size_t count, unsigned tag,
                                 std::size_t first) {
  auto n = d.carriers.size();
  if (n < 2)
    throw std::runtime_error("the load test needs at least two carriers");
  auto keys = keyrings_of(d);
  std::vector<person> persons;
  persons.reserve(count);
  for (std::size_t i = first; i < first + count; ++i) {
    person p;
    p.name = "Load Person " + std::to_string(i);
    p.id_number = "LT" + digits(tag % 10000, 4) + digits(i, 8);
    // 2 or 3 lines, each at a different carrier, the first carrier rotating.
    std::size_t lines = std::min<std::size_t>(2 + i % 2, n);
    for (std::size_t k = 0; k < lines; ++k)
      p.lines.push_back(make_line(d.carriers[(i + k) % n], keys[(i + k) % n], tag, i, k));
    // Every fourth person: a second line at the first line's carrier.
    if (i % 4 == 3)
      p.lines.push_back(make_line(d.carriers[i % n], keys[i % n], tag, i, lines));
    persons.push_back(std::move(p));
  }
  return persons;
}

namespace {

std::string read_key(const carrier_info& c) {
  std::ifstream in(c.admin_key_file, std::ios::binary);
  std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back())))
    key.pop_back();
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.front())))
    key.erase(0, 1);
  if (!in.good() && !in.eof())
    key.clear();
  if (key.empty())
    throw std::runtime_error("cannot read the admin key of " + c.id + " from " +
                             c.admin_key_file + " (tools/cluster up makes it)");
  return key;
}

/// Waits for the answers of the requests in flight, failing on `failure`.
void drain(http_driver& http, const std::size_t& left, const std::string& failure,
           const std::string& what) {
  auto deadline = clock::now() + std::chrono::minutes(10);
  while (left > 0 && failure.empty() && clock::now() < deadline)
    http.poll(std::chrono::milliseconds{20});
  if (!failure.empty())
    throw std::runtime_error(failure);
  if (left > 0)
    throw std::runtime_error(what + " did not finish in 10 minutes");
}

} // namespace

void provision_all(http_driver& http, const deployment& d,
                   const std::vector<person>& persons) {
  std::map<std::string, std::string> ndjson; // per carrier
  std::map<std::string, std::size_t> records;
  for (const auto& p : persons)
    for (const auto& l : p.lines) {
      nlohmann::json record{{"msisdn", l.msisdn},
                            {"iccid", l.iccid},
                            {"name", p.name},
                            {"id_number", p.id_number},
                            {"active", true}};
      ndjson[l.carrier] += record.dump() + "\n";
      ++records[l.carrier];
    }
  std::size_t left = 0;
  std::string failure;
  for (auto& [id, body] : ndjson) {
    const auto* c = d.find(id);
    if (!c || c->admin.empty() || c->admin_key_file.empty() || c->sms_files.empty())
      throw std::runtime_error(
          "carrier " + id +
          ": registration needs its admin port, admin key file and SMS files "
          "(tools/cluster status --json lists them; with --gateway: --admin, "
          "--admin-key, --sms-file)");
    ++left;
    auto count = records[id];
    // A 503 (a node not yet joined to the carrier's others) is sent again
    // after its Retry-After, a few times: importing the same records again
    // changes nothing.
    auto send = std::make_shared<std::function<void(clock::time_point, int)>>();
    *send = [&, send, id, count, admin = c->admin, body = std::move(body),
             key = read_key(*c)](clock::time_point when, int tries) {
      http.submit_at(
          when, {"POST", admin + "/admin/subscribers", body, "application/x-ndjson", key},
          [&, send, id, count, tries](http_response&& r) {
            if (r.status == 503 && tries < 30)
              return (*send)(r.retry_at(), tries + 1);
            *send = nullptr; // the closure held itself until now
            --left;
            if (r.status != 200) {
              failure = "provisioning " + std::to_string(count) + " subscribers at " +
                        id + ": " +
                        (r.status ? std::to_string(r.status) + " " + r.body.substr(0, 500)
                                  : r.error);
              return;
            }
            auto j = nlohmann::json::parse(r.body, nullptr, false);
            say("setup: " + id + ": " + std::to_string(count) +
                " subscribers provisioned (" +
                std::to_string(j.is_object() ? j.value("created", 0) : 0) + " new)");
          });
    };
    (*send)(clock::now(), 1);
  }
  drain(http, left, failure, "provisioning");
}

void register_all(http_driver& http, const deployment& d, std::vector<person>& persons) {
  provision_all(http, d, persons);
  std::map<std::string, sms_inbox> inboxes;
  for (const auto& c : d.carriers)
    inboxes.emplace(c.id, sms_inbox(c.sms_files));
  std::size_t done = 0, total = 0, retries = 0, texted = 0;
  std::string failure;
  ticker tick;
  struct waiting {
    person* p;
    line* l;
    clock::time_point since;
  };
  std::vector<waiting> awaiting_code; // code requested (202), not yet read
  std::function<void(person*, line*, clock::time_point)> request;
  std::function<void(person*, line*, std::string, clock::time_point)> verify;
  // 503 (shed) and 429 (a registration limit) are retried after Retry-After.
  auto retry = [&](const http_response& r) {
    if (r.status != 503 && r.status != 429)
      return false;
    ++retries;
    return true;
  };
  auto failed = [&](const std::string& step, const line& l, const http_response& r) {
    failure = step + " " + l.msisdn + " at " + l.gateway + ": " +
              (r.status ? std::to_string(r.status) + " " + r.body : r.error);
  };
  request = [&](person* p, line* l, clock::time_point when) {
    nlohmann::json body{{"msisdn", l->msisdn}, {"iccid", l->iccid}};
    http.submit_at(
        when, {"POST", l->gateway + "/v1/register", body.dump(), "application/json", ""},
        [&, p, l](http_response&& r) {
          if (retry(r))
            return request(p, l, r.retry_at());
          if (r.status != 202)
            return failed("register", *l, r);
          ++texted;
          awaiting_code.push_back({p, l, clock::now()});
        });
  };
  verify = [&](person* p, line* l, std::string code, clock::time_point when) {
    nlohmann::json body{{"msisdn", l->msisdn}, {"code", code}};
    http.submit_at(
        when,
        {"POST", l->gateway + "/v1/register/verify", body.dump(), "application/json", ""},
        [&, p, l, code](http_response&& r) {
          if (retry(r))
            return verify(p, l, code, r.retry_at());
          ++done;
          if (r.status != 200 && r.status != 201)
            return failed("verify", *l, r);
          auto j = nlohmann::json::parse(r.body, nullptr, false);
          if (j.is_discarded() || !j.contains("token") || !j.contains("idcode")) {
            failure = "verify " + l->msisdn + ": unexpected answer " + r.body;
            return;
          }
          l->token = j["token"];
          std::string idcode = j["idcode"];
          if (!p->idcode.empty() && p->idcode != idcode)
            failure = "verify " + l->msisdn + ": idcode differs from its person's";
          p->idcode = idcode;
        });
  };
  auto now = clock::now();
  for (auto& p : persons)
    for (auto& l : p.lines) {
      ++total;
      request(&p, &l, now);
    }
  auto deadline = clock::now() + std::chrono::minutes(10);
  while (done < total && failure.empty() && clock::now() < deadline) {
    http.poll(std::chrono::milliseconds{5});
    if (!awaiting_code.empty()) {
      // Each carrier's SMS files are read once per round, from where they ended.
      for (auto& [id, inbox] : inboxes)
        inbox.refresh();
      auto now = clock::now();
      auto still = std::remove_if(
          awaiting_code.begin(), awaiting_code.end(), [&](const waiting& w) {
            auto code = inboxes.at(w.l->carrier).take(w.l->msisdn);
            if (!code.empty()) {
              verify(w.p, w.l, code, now);
              return true;
            }
            if (now - w.since > std::chrono::seconds{30} && failure.empty())
              failure = "no SMS code reached " + w.l->msisdn + " at " + w.l->carrier +
                        " in 30 s (is its [sms] kind \"file\"?)";
            return false;
          });
      awaiting_code.erase(still, awaiting_code.end());
    }
    if (tick())
      say("setup: " + std::to_string(texted) + " of " + std::to_string(total) +
          " lines sent a code, " + std::to_string(done) + " registered" +
          (retries ? " (" + std::to_string(retries) + " retried after 503/429)" : ""));
  }
  if (!failure.empty())
    throw std::runtime_error(failure);
  if (done < total)
    throw std::runtime_error("registration did not finish in 10 minutes");
}

void wait_for_siblings(const deployment& d, const std::vector<person>& persons,
                       std::chrono::seconds timeout, std::chrono::milliseconds fallback) {
  if (!d.has_redis()) {
    std::this_thread::sleep_for(fallback);
    return;
  }
  // Per carrier: the idcodes there and how many siblings each must know.
  std::map<std::string, std::vector<std::pair<std::string, std::size_t>>> wanted;
  for (const auto& p : persons) {
    std::map<std::string, bool> at;
    for (const auto& l : p.lines)
      at[l.carrier] = true;
    for (const auto& [carrier, yes] : at)
      wanted[carrier].emplace_back(p.idcode, at.size() - 1);
  }
  auto deadline = clock::now() + timeout;
  for (const auto& [carrier, accounts] : wanted) {
    const auto* c = d.find(carrier);
    std::vector<store::redis_client> clients;
    for (std::size_t i = 0; i < c->redis.size(); ++i) {
      auto client = store::redis_client::connect(redis_endpoint_of(*c, i));
      if (!client)
        throw std::runtime_error("cannot connect to redis " + c->redis[i] + " of " +
                                 carrier + ": " + describe(client.error()));
      clients.push_back(std::move(*client));
    }
    std::vector<std::string> keys;
    for (const auto& a : accounts)
      keys.push_back(store::keys::siblings(a.first));
    for (;;) {
      std::vector<std::size_t> known(accounts.size(), 0);
      for (auto& client : clients) {
        std::vector<store::command> cmds;
        for (const auto& k : keys)
          cmds.push_back({"SCARD", k});
        auto replies = client.pipeline(cmds);
        if (!replies)
          throw std::runtime_error("redis of " + carrier + " failed during setup");
        for (std::size_t i = 0; i < replies->size(); ++i)
          known[i] = std::max<std::size_t>(
              known[i], static_cast<std::size_t>((*replies)[i].view().integer()));
      }
      std::size_t missing = 0;
      for (std::size_t i = 0; i < accounts.size(); ++i)
        missing += known[i] < accounts[i].second;
      if (missing == 0)
        break;
      if (clock::now() > deadline)
        throw std::runtime_error(std::to_string(missing) + " accounts at " + carrier +
                                 " still miss their siblings");
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
  }
}

std::string make_card(const std::string& uid, std::uint64_t serial,
                      std::uint64_t variant) {
  core::vcard card;
  card.version = "3.0";
  auto prop = [&](std::string name, std::vector<std::string> values,
                  std::vector<std::string> types = {}) {
    core::vcard_property p;
    p.name = std::move(name);
    p.values = std::move(values);
    p.types = std::move(types);
    card.properties.push_back(std::move(p));
  };
  auto number = digits(serial % 100000000, 8);
  prop("UID", {uid});
  prop("FN", {"Contact " + number});
  prop("N", {"Contact", number, "", "", ""});
  prop("TEL", {"+86139" + number}, {"cell"});
  prop("EMAIL", {"c" + number + "@example.com"}, {"home"});
  prop("ORG", {"Example Co."});
  if (variant)
    prop("NOTE", {"edit " + std::to_string(variant)});
  return core::serialize(card, core::vcard_version::v3_0);
}

std::string line_url(const line& l, const std::string& rest) {
  return l.gateway + "/v1/lines/" + url_escape(l.msisdn) + rest;
}

std::vector<std::size_t> sibling_lines(const person& p, std::size_t from) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < p.lines.size(); ++i)
    if (i != from)
      out.push_back(i);
  return out;
}

} // namespace simsync::load
