#include "store/dead_letters.hpp"

#include "core/error.hpp"
#include "store/keys.hpp"
#include "store/operator_streams.hpp"

#include <cstdlib>

namespace simsync::store {

caf::expected<std::uint64_t>
keep_dead_letters(redis_client& redis, const core::keyring& keys, const std::string& peer,
                  const std::vector<dead_letter>& letters, std::uint64_t now_ms) {
  if (letters.empty())
    return std::uint64_t{0};
  // One MULTI/EXEC: the letters are kept together or not at all.
  std::vector<command> commands;
  commands.push_back({"MULTI"});
  // A command holds views: every string it names outlives the pipeline.
  auto key = keys::dead_letters(peer);
  auto at = std::to_string(now_ms);
  auto kept = std::to_string(kept_for_operator);
  // A letter's batch may not even parse, so it is sealed whole, not card by
  // card. A directory entry's is empty: nothing to seal.
  std::vector<std::string> sealed;
  sealed.reserve(letters.size());
  for (const auto& l : letters)
    sealed.push_back(l.entry.batch.empty() ? std::string()
                                           : keys.seal(l.entry.batch, l.entry.idcode));
  for (std::size_t i = 0; i < letters.size(); ++i) {
    const auto& l = letters[i];
    commands.push_back({"XADD", key, "MAXLEN", "~", kept, "*", "entry", l.entry.id,
                        "idcode", l.entry.idcode, "kind", kind_name(l.entry.kind),
                        "batch", sealed[i], "reason", l.reason, "at_ms", at});
  }
  commands.push_back({"EXEC"});
  auto replies = redis.pipeline(commands);
  if (!replies)
    return std::move(replies.error());
  const auto& exec = replies->back();
  if (!exec.view().is_array() || exec.view().size() != letters.size())
    return caf::make_error(ec::store_unavailable, "Redis did not keep the dead letters");
  return static_cast<std::uint64_t>(letters.size());
}

caf::expected<std::vector<kept_letter>>
read_dead_letters(redis_client& redis, const core::keyring& keys, const std::string& peer,
                  std::size_t limit, const std::string& from, const std::string& to) {
  auto key = keys::dead_letters(peer);
  auto count = std::to_string(limit);
  auto r = redis.call({"XRANGE", key, from, to, "COUNT", count});
  if (!r)
    return std::move(r.error());
  auto v = r->view();
  if (!v.is_array())
    return caf::make_error(ec::store_corrupt, "XRANGE answered an unexpected reply");
  std::vector<kept_letter> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto fields = v[i][1];
    kept_letter k;
    k.id = std::string(v[i][0].str());
    k.letter.entry = outbox_entry{stream_field(fields, "entry"),
                                  stream_field(fields, "idcode"),
                                  kind_named(stream_field(fields, "kind")),
                                  {}};
    k.letter.reason = stream_field(fields, "reason");
    auto sealed = stream_field(fields, "batch");
    if (auto batch = keys.open(sealed, k.letter.entry.idcode))
      k.letter.entry.batch = std::move(*batch);
    else if (!sealed.empty())
      k.letter.reason += " (its batch does not open with this node's keyring)";
    k.at_ms = std::strtoull(stream_field(fields, "at_ms").c_str(), nullptr, 10);
    out.push_back(std::move(k));
  }
  return out;
}

caf::expected<bool> drop_dead_letter(redis_client& redis, const std::string& peer,
                                     const std::string& id) {
  return drop_kept_entry(redis, keys::dead_letters(peer), id);
}

} // namespace simsync::store
