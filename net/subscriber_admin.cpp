#include "net/subscriber_admin.hpp"

#include "core/identity.hpp"
#include "core/keyring.hpp"
#include "core/line_id.hpp"
#include "net/admin_auth.hpp"
#include "net/line_retirement.hpp"
#include "net/request_fields.hpp"
#include "net/subscriber_input.hpp"

#include <map>
#include <memory>

namespace simsync::net {

namespace {

/// A subscriber as the store keeps it: the line id and the ICCID's hash for
/// the numbers, the idcode made, and the name and ID number sealed under this
/// carrier's key, bound to the idcode.
store::subscriber_record sealed_record(const core::keyring& keys,
                                       const std::string& federation_key,
                                       const subscriber_input& in) {
  auto idcode = core::idcode(federation_key, in.person);
  nlohmann::json info{{"name", in.person.name}, {"id_number", in.person.id_number}};
  return store::subscriber_record{core::line_id_of(keys, in.msisdn),
                                  core::iccid_hash_of(keys, in.iccid), idcode,
                                  keys.seal(info.dump(), idcode), in.active};
}

/// What a bulk write did, for its answer.
struct import_tally {
  std::uint64_t created = 0;
  std::uint64_t replaced = 0;
  std::uint64_t unchanged = 0;
  std::uint64_t lines_retired = 0;
  /// (line id, owner) of lines that must go, in record order.
  std::vector<std::pair<std::string, std::string>> to_retire;
};

/// Records per message to a shard: a large import does not hold a shard
/// (and the phones it serves) for long at a time.
constexpr std::size_t records_per_message = 500;

using done_fn = std::function<void()>;

/// Retires the tally's lines one after the other, then `done`.
void retire_all(const exchange_ptr& ex, std::shared_ptr<import_tally> tally,
                std::size_t i, done_fn done) {
  if (i == tally->to_retire.size())
    return done();
  const auto& [line, owner] = tally->to_retire[i];
  retire_line(ex, line, owner, std::string(store::operator_proof),
              [ex, tally, i, done](bool removed, bool) {
                tally->lines_retired += removed ? 1 : 0;
                retire_all(ex, tally, i + 1, done);
              });
}

/// Writes the batches one after the other (each to its lines' shard),
/// counting outcomes, then retires the lines that must go, then `done`.
void write_batches(
    const exchange_ptr& ex,
    std::shared_ptr<std::vector<std::pair<int, std::vector<store::subscriber_record>>>>
        batches,
    std::size_t i, std::shared_ptr<import_tally> tally, done_fn done) {
  if (i == batches->size())
    return retire_all(ex, tally, 0, std::move(done));
  auto& [shard, records] = (*batches)[i];
  ex->ask_at(
      shard,
      [ex, batches, i, tally,
       done](const std::vector<store::subscriber_outcome>& outcomes) {
        const auto& records = (*batches)[i].second;
        for (std::size_t k = 0; k < outcomes.size() && k < records.size(); ++k) {
          const auto& o = outcomes[k];
          switch (o.change) {
          case store::subscriber_change::created:
            ++tally->created;
            break;
          case store::subscriber_change::replaced:
            ++tally->replaced;
            break;
          case store::subscriber_change::unchanged:
            ++tally->unchanged;
            break;
          }
          if (!o.retire_owner.empty())
            tally->to_retire.emplace_back(records[k].line, o.retire_owner);
        }
        write_batches(ex, batches, i + 1, tally, done);
      },
      atom::put_subscriber_v, records, core::unix_now_ms());
}

/// Writes `records` in messages of at most records_per_message per shard.
void write_records(const exchange_ptr& ex, const std::vector<subscriber_input>& inputs,
                   std::function<void(const import_tally&)> done) {
  auto& ctx = ex->ctx();
  auto keys = ctx.keys->current();
  std::map<int, std::vector<store::subscriber_record>> by_shard;
  for (const auto& in : inputs) {
    auto record = sealed_record(*keys, ctx.federation_key, in);
    by_shard[config::shard_of_line(record.line, ctx.shard_count)].push_back(
        std::move(record));
  }
  auto batches = std::make_shared<
      std::vector<std::pair<int, std::vector<store::subscriber_record>>>>();
  for (auto& [shard, records] : by_shard)
    for (std::size_t at = 0; at < records.size(); at += records_per_message) {
      auto end = std::min(records.size(), at + records_per_message);
      batches->emplace_back(shard,
                            std::vector<store::subscriber_record>(
                                records.begin() + static_cast<std::ptrdiff_t>(at),
                                records.begin() + static_cast<std::ptrdiff_t>(end)));
    }
  auto tally = std::make_shared<import_tally>();
  std::vector<int> shards;
  for (const auto& [shard, records] : by_shard)
    shards.push_back(shard);
  // Every shard reachable before the first write: an import that cannot
  // reach one of them writes nothing (one that fails midway is retried
  // whole; writing a record again changes nothing).
  ex->with_shards(shards, [ex, batches, tally, done] {
    write_batches(ex, batches, 0, tally, [tally, done] { done(*tally); });
  });
}

} // namespace

void handle_put_subscriber(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  auto body = json_body(ex);
  if (!body)
    return;
  auto parsed = parse_subscriber(*body, ex->param(0));
  if (!parsed.error.empty())
    return ex->fail(problem{400, "invalid-subscriber", "The subscriber record is invalid",
                            parsed.error});
  write_records(ex, {*parsed.input}, [ex](const import_tally& t) {
    ex->reply_json(t.created ? 201 : 200, {{"msisdn", ex->param(0)},
                                           {"created", t.created > 0},
                                           {"line_retired", t.lines_retired > 0}});
  });
}

void handle_delete_subscriber(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  const auto& msisdn = ex->param(0);
  if (auto check = core::validate_msisdn(msisdn); !check.ok())
    return ex->fail(bad_field("msisdn", check.reason));
  auto line = core::line_id_of(*ex->ctx().keys->current(), msisdn);
  ex->ask_at(
      config::shard_of_line(line, ex->ctx().shard_count),
      [ex, line](const store::subscriber_outcome& o) {
        auto answer = [ex, existed = o.existed](bool line_retired) {
          if (!existed && !line_retired)
            return ex->fail(problem{404, "unknown-subscriber", "No such subscriber",
                                    "the number has no subscriber record here"});
          ex->reply_json(200, {{"deleted", existed}, {"line_retired", line_retired}});
        };
        if (o.retire_owner.empty())
          return answer(false);
        retire_line(ex, line, o.retire_owner, std::string(store::operator_proof),
                    [answer](bool removed, bool) { answer(removed); });
      },
      atom::delete_subscriber_v, line);
}

void handle_import_subscribers(const exchange_ptr& ex) {
  if (!admin_authorized(ex))
    return;
  auto type = media_type(*ex);
  if (type != "text/csv" && type != "application/x-ndjson" && !type.empty())
    return ex->fail(
        problem{415, "unsupported-media-type", "The body must be NDJSON or CSV",
                "Content-Type " + type + " is not application/x-ndjson or text/csv"});
  auto parsed = type == "text/csv" ? parse_subscriber_csv(ex->body())
                                   : parse_subscriber_ndjson(ex->body());
  if (!parsed.errors.empty()) {
    problem p{422, "invalid-subscribers", "Some subscriber records are invalid",
              "nothing was written; fix the records listed and send them again"};
    auto errors = nlohmann::json::array();
    for (const auto& [line, error] : parsed.errors)
      errors.push_back({{"line", line}, {"error", error}});
    p.extra["errors"] = std::move(errors);
    return ex->fail(p);
  }
  write_records(ex, parsed.inputs, [ex](const import_tally& t) {
    ex->reply_json(200, {{"created", t.created},
                         {"replaced", t.replaced},
                         {"unchanged", t.unchanged},
                         {"lines_retired", t.lines_retired}});
  });
}

} // namespace simsync::net
