#include "store/sealed_records.hpp"

#include "core/card_compression.hpp"
#include "core/record.hpp"
#include "store/netstrings.hpp"

namespace simsync::store {

namespace {

/// The form a rewritten record's head takes: `kept` as the store keeps it
/// (compact), `sent` as peers take it (text), or `as_it_is`.
enum class head_as { kept, sent, as_it_is };

/// Appends `record` to `out` with its head written as `head` says and its
/// live card replaced by what `transform(out, card)` appends (a tombstone,
/// which holds no card, keeps its body); false, with `out` as it was, if it
/// is not a record or the transform fails.
template <class Transform>
bool append_with_card(std::string& out, std::string_view record, head_as head,
                      Transform&& transform) {
  auto body_at = core::record_body_at(record);
  if (body_at == std::string_view::npos)
    return false;
  auto at = out.size();
  if (head == head_as::as_it_is)
    out.append(record.substr(0, body_at));
  else if (!core::append_record_head(out, record,
                                     head == head_as::kept ? core::record_form::compact
                                                           : core::record_form::text))
    return false;
  if (core::record_is_tombstone(record)) {
    out.append(record.substr(body_at));
    return true;
  }
  if (!transform(out, record.substr(body_at))) {
    out.resize(at);
    return false;
  }
  return true;
}

template <class Transform>
std::optional<std::string> with_card(std::string_view record, head_as head,
                                     Transform&& transform) {
  std::string out;
  // Room for a record sealed as it is, the most common transform.
  out.reserve(record.size() + core::keyring::overhead);
  if (!append_with_card(out, record, head, transform))
    return std::nullopt;
  return out;
}

/// Hands `take` each uid, record pair of `batch` (netstrings, as outbox
/// entries carry them) as views into it; false if the batch is malformed or
/// `take` refuses a pair.
template <class Take> bool each_pair(std::string_view batch, Take&& take) {
  auto items = split_netstrings(batch);
  if (!items || items->size() % 2 != 0)
    return false;
  for (std::size_t i = 0; i < items->size(); i += 2)
    if (!take((*items)[i], (*items)[i + 1]))
      return false;
  return true;
}

/// `batch` with each record's card transformed (append_with_card); nullopt
/// if it is malformed or a transform fails. Each record is built in a string
/// the thread keeps, since its netstring's length comes first.
template <class Transform>
std::optional<std::string> joined_batch(std::string_view batch, head_as head,
                                        Transform&& transform) {
  thread_local std::string record_out;
  std::string out;
  out.reserve(batch.size());
  auto joined = each_pair(batch, [&](std::string_view uid, std::string_view record) {
    record_out.clear();
    if (!append_with_card(record_out, record, head, transform))
      return false;
    append_netstring(out, uid);
    append_netstring(out, record_out);
    return true;
  });
  return joined ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

/// Appends `card` compressed and sealed to `out`.
void append_compressed_sealed(std::string& out, const core::keyring& keys,
                              std::string_view card, std::string_view idcode) {
  thread_local std::string compressed;
  compressed.clear();
  core::compress_card_into(compressed, card);
  keys.seal_into(out, compressed, idcode);
}

/// Appends `card` sealed to `out`, compressed first unless it is already.
void append_sealed_card(std::string& out, const core::keyring& keys,
                        std::string_view card, std::string_view idcode) {
  if (core::is_compressed_card(card))
    keys.seal_into(out, card, idcode);
  else
    append_compressed_sealed(out, keys, card, idcode);
}

/// Appends the card `stored` holds to `out`, expanded if it is compressed.
bool append_expanded_card(std::string& out, std::string_view stored) {
  thread_local std::string expanded;
  if (!core::expand_card_into(stored, expanded))
    return false;
  out.append(expanded);
  return true;
}

/// Appends the card sealed in `sealed` to `out`, opened and expanded.
bool append_opened_card(std::string& out, const core::keyring& keys,
                        std::string_view sealed, std::string_view idcode) {
  thread_local std::string opened;
  opened.clear();
  return keys.open_into(opened, sealed, idcode) && append_expanded_card(out, opened);
}

} // namespace

std::string seal_card(const core::keyring& keys, std::string_view card,
                      std::string_view idcode) {
  std::string out;
  append_compressed_sealed(out, keys, card, idcode);
  return out;
}

std::optional<std::string> open_sealed_card(const core::keyring& keys,
                                            std::string_view sealed,
                                            std::string_view idcode) {
  std::string out;
  if (!append_opened_card(out, keys, sealed, idcode))
    return std::nullopt;
  return out;
}

std::optional<std::string> seal_record(const core::keyring& keys, std::string_view record,
                                       std::string_view idcode) {
  return with_card(record, head_as::kept, [&](std::string& out, std::string_view card) {
    append_sealed_card(out, keys, card, idcode);
    return true;
  });
}

std::optional<std::string> open_record(const core::keyring& keys, std::string_view record,
                                       std::string_view idcode) {
  return with_card(record, head_as::as_it_is,
                   [&](std::string& out, std::string_view card) {
                     return append_opened_card(out, keys, card, idcode);
                   });
}

std::optional<std::string> resealed_record(const core::keyring& keys,
                                           std::string_view record,
                                           std::string_view idcode) {
  return with_card(record, head_as::as_it_is,
                   [&](std::string& out, std::string_view card) {
                     thread_local std::string opened;
                     opened.clear();
                     if (!keys.open_into(opened, card, idcode))
                       return false;
                     append_sealed_card(out, keys, opened, idcode);
                     return true;
                   });
}

std::optional<std::string> unseal_record(const core::keyring& keys,
                                         std::string_view record,
                                         std::string_view idcode) {
  return with_card(record, head_as::sent, [&](std::string& out, std::string_view card) {
    return keys.open_into(out, card, idcode);
  });
}

std::optional<std::string> unseal_batch(const core::keyring& keys, std::string_view batch,
                                        std::string_view idcode) {
  return joined_batch(batch, head_as::sent, [&](std::string& out, std::string_view card) {
    return keys.open_into(out, card, idcode);
  });
}

std::optional<std::string> expand_batch(std::string_view batch) {
  return joined_batch(batch, head_as::as_it_is,
                      [](std::string& out, std::string_view card) {
                        return append_expanded_card(out, card);
                      });
}

std::optional<std::vector<std::string>>
sealed_items(const core::keyring& keys, std::string_view batch, std::string_view idcode) {
  std::vector<std::string> out;
  auto sealed = each_pair(batch, [&](std::string_view uid, std::string_view record) {
    auto sealed_record = seal_record(keys, record, idcode);
    if (!sealed_record)
      return false;
    out.emplace_back(uid);
    out.push_back(std::move(*sealed_record));
    return true;
  });
  return sealed ? std::optional<std::vector<std::string>>(std::move(out)) : std::nullopt;
}

std::optional<core::keyring::key_id> sealing_key(std::string_view record) {
  auto body_at = core::record_body_at(record);
  if (body_at == std::string_view::npos)
    return std::nullopt;
  return core::keyring::key_of(record.substr(body_at));
}

std::string why_unopened(const core::keyring& keys, std::string_view record,
                         std::string_view idcode) {
  auto body_at = core::record_body_at(record);
  if (body_at == std::string_view::npos)
    return "it is not a record";
  auto id = sealing_key(record);
  if (!id)
    return "its card is not sealed";
  if (!keys.holds(*id))
    return "its card was sealed with key " + std::to_string(*id) +
           ", which this node's keyring lacks";
  if (keys.open(record.substr(body_at), idcode))
    return "its card opens but its compressed form is damaged";
  return "its card was altered, or moved from another account";
}

} // namespace simsync::store
