#include "store/reseal.hpp"

#include "core/record.hpp"
#include "store/history_fields.hpp"
#include "store/keys.hpp"
#include "store/netstrings.hpp"
#include "store/outbox.hpp"
#include "store/scripts.hpp"
#include "store/sealed_records.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace simsync::store {

namespace {

constexpr const char* keys_per_step = "100";

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// The account a key belongs to: its hash tag ("shared:{<idcode>}...").
std::string tag_of(std::string_view key) {
  auto open = key.find('{');
  auto close = key.find('}', open);
  if (open == std::string_view::npos || close == std::string_view::npos)
    return {};
  return std::string(key.substr(open + 1, close - open - 1));
}

/// The key that sealed a stored value: a record's card, or a value sealed
/// whole (user info, a line's number). nullopt for anything unsealed.
std::optional<core::keyring::key_id> sealing_key(std::string_view value) {
  auto body_at = core::record_body_at(value);
  if (body_at != std::string_view::npos)
    return core::keyring::key_of(value.substr(body_at));
  return core::keyring::key_of(value);
}

/// `value` sealed again with the writer key, bound to `idcode`; nullopt if
/// it does not open.
std::optional<std::string> sealed_again(const core::keyring& keys, std::string_view value,
                                        const std::string& idcode) {
  if (core::record_body_at(value) != std::string_view::npos)
    return resealed_record(keys, value, idcode);
  auto clear = keys.open(value, idcode);
  return clear ? std::optional<std::string>(keys.seal(*clear, idcode)) : std::nullopt;
}

/// One change a pass wants: `field` of a hash, or of a stream entry.
struct rewrite {
  std::string entry; ///< stream entry id; empty for a hash field
  std::string field;
  std::string old_value;
  std::string new_value;
};

/// Decides for one stored value: nothing to do, a rewrite, or left behind.
void consider(const core::keyring& keys, const std::string& idcode, std::string entry,
              std::string field, std::string_view value, std::vector<rewrite>& out,
              reseal_step& step) {
  auto id = sealing_key(value);
  if (!id || *id == keys.writer())
    return;
  auto again = sealed_again(keys, value, idcode);
  if (!again) {
    ++step.left[*id];
    return;
  }
  out.push_back(
      {std::move(entry), std::move(field), std::string(value), std::move(*again)});
}

caf::expected<void> reseal_hash(redis_client& redis, const core::keyring& keys,
                                const std::string& key, reseal_step& step) {
  auto r = redis.call({"HGETALL", key});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  // A subscriber's record is bound to the idcode it names; account keys to their tag.
  auto idcode = tag_of(key);
  for (std::size_t i = 0; idcode.empty() && i + 1 < v.size(); i += 2)
    if (v[i].str() == "id")
      idcode = std::string(v[i + 1].str());
  std::vector<rewrite> todo;
  for (std::size_t i = 0; i + 1 < v.size(); i += 2)
    consider(keys, idcode, {}, std::string(v[i].str()), v[i + 1].str(), todo, step);
  if (todo.empty())
    return {};
  std::vector<std::string_view> args{key};
  for (const auto& t : todo)
    args.insert(args.end(), {t.field, t.old_value, t.new_value});
  auto done = run_script(redis, script::reseal_hash, args);
  if (!done)
    return std::move(done.error());
  auto replaced = static_cast<std::uint64_t>(done->view()[0].integer());
  step.resealed += replaced;
  step.changed += todo.size() - replaced;
  return {};
}

/// The entries of a stream: [id, [field, value, ...]] each.
caf::expected<reply> stream_entries(redis_client& redis, const std::string& key) {
  return redis.call({"XRANGE", key, "-", "+"});
}

/// A stream whose entries hold sealed values in `field` (history: the version
/// a change replaced; dead letters: the batch), each bound to the account
/// its key's tag names or, without a tag, to the entry's `idcode` field.
caf::expected<void> reseal_stream(redis_client& redis, const core::keyring& keys,
                                  const std::string& key, std::string_view field,
                                  reseal_step& step) {
  auto r = stream_entries(redis, key);
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (v.size() == 0)
    return {};
  auto tag = tag_of(key);
  std::vector<rewrite> todo;
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto fields = v[i][1];
    auto idcode = tag.empty() ? stream_field(fields, "idcode") : tag;
    for (std::size_t f = 0; f + 1 < fields.size(); f += 2)
      if (fields[f].str() == field)
        consider(keys, idcode, std::string(v[i][0].str()), std::string(field),
                 fields[f + 1].str(), todo, step);
  }
  if (todo.empty())
    return {};
  auto last = std::string(v[v.size() - 1][0].str());
  auto length = std::to_string(v.size());
  std::vector<std::string_view> args{key, last, length};
  for (const auto& t : todo)
    args.insert(args.end(), {t.entry, t.field, t.new_value});
  auto done = run_script(redis, script::reseal_stream, args);
  if (!done)
    return std::move(done.error());
  auto replaced = done->view()[0].integer();
  if (replaced < 0) // appended or trimmed meanwhile: the next pass takes it
    step.changed += todo.size();
  else
    step.resealed += static_cast<std::uint64_t>(replaced);
  return {};
}

/// Outbox entries are not rewritten: a link may be reading them, and they
/// leave as it sends them. They are counted, so the old key stays until
/// they are gone.
caf::expected<void> count_outbox(redis_client& redis, const core::keyring& keys,
                                 const std::string& key, reseal_step& step) {
  auto r = stream_entries(redis, key);
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto batch = outbox_batch(v[i][1]);
    auto items = batch ? split_netstrings(*batch) : std::nullopt;
    if (!items)
      continue;
    for (std::size_t j = 1; j < items->size(); j += 2)
      if (auto id = sealing_key((*items)[j]); id && *id != keys.writer()) {
        ++step.left[*id];
        break;
      }
  }
  return {};
}

} // namespace

std::string sealed_by_writer(const core::keyring& keys, std::string value,
                             const std::string& idcode) {
  auto id = core::keyring::key_of(value);
  if (!id || *id == keys.writer())
    return value;
  auto again = sealed_again(keys, value, idcode);
  return again ? std::move(*again) : std::move(value);
}

caf::expected<reseal_step> reseal_step_at(redis_client& redis, const core::keyring& keys,
                                          const std::string& cursor) {
  auto r = redis.call({"SCAN", cursor, "COUNT", keys_per_step});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array() || v.size() != 2)
    return caf::make_error(ec::store_corrupt, "SCAN answered an unexpected reply");
  reseal_step step;
  step.cursor = std::string(v[0].str());
  for (std::size_t i = 0; i < v[1].size(); ++i) {
    std::string key(v[1][i].str());
    ++step.scanned;
    caf::expected<void> done{};
    namespace prefix = store::keys::prefix; // `keys` here is the keyring
    if (starts_with(key, prefix::shared) || starts_with(key, prefix::private_backup) ||
        starts_with(key, prefix::account) || starts_with(key, prefix::subscriber) ||
        starts_with(key, prefix::line))
      done = reseal_hash(redis, keys, key, step);
    else if (starts_with(key, prefix::history) ||
             starts_with(key, prefix::private_history))
      done = reseal_stream(redis, keys, key, history_fields::previous, step);
    else if (starts_with(key, prefix::dead_letters))
      done = reseal_stream(redis, keys, key, "batch", step);
    else if (starts_with(key, prefix::outbox))
      done = count_outbox(redis, keys, key, step);
    if (!done)
      return std::move(done.error());
  }
  return step;
}

} // namespace simsync::store
