#include "store/sealed_records.hpp"

#include "core/card_compression.hpp"
#include "core/record.hpp"
#include "store/netstrings.hpp"

namespace simsync::store {

namespace {

/// `record` with its live card replaced by `transform(card)`; nullopt if it
/// is not a record or the transform fails.
template <class Transform>
std::optional<std::string> with_card(std::string_view record, Transform&& transform) {
  auto body_at = core::record_body_at(record);
  if (body_at == std::string_view::npos)
    return std::nullopt;
  if (core::record_is_tombstone(record))
    return std::string(record);
  std::optional<std::string> card = transform(record.substr(body_at));
  if (!card)
    return std::nullopt;
  std::string out;
  out.reserve(body_at + card->size());
  out.append(record.substr(0, body_at));
  out += *card;
  return out;
}

/// Hands `take` each uid, record pair of `batch` (netstrings, as outbox
/// entries carry them) with the record transformed; false if the batch is
/// malformed or a transform fails.
template <class Transform, class Take>
bool each_record(std::string_view batch, Transform&& transform, Take&& take) {
  auto items = split_netstrings(batch);
  if (!items || items->size() % 2 != 0)
    return false;
  for (std::size_t i = 0; i < items->size(); i += 2) {
    auto record = transform((*items)[i + 1]);
    if (!record)
      return false;
    take(std::move((*items)[i]), std::move(*record));
  }
  return true;
}

/// `batch` with each record transformed; nullopt if it is malformed or a
/// transform fails.
template <class Transform>
std::optional<std::string> joined_batch(std::string_view batch, Transform&& transform) {
  std::string out;
  out.reserve(batch.size());
  auto joined = each_record(batch, transform,
                            [&](const std::string& uid, const std::string& record) {
                              append_netstring(out, uid);
                              append_netstring(out, record);
                            });
  return joined ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

} // namespace

std::string seal_card(const core::keyring& keys, std::string_view card,
                      std::string_view idcode) {
  return keys.seal(core::compress_card(card), idcode);
}

std::optional<std::string> open_sealed_card(const core::keyring& keys,
                                            std::string_view sealed,
                                            std::string_view idcode) {
  auto opened = keys.open(sealed, idcode);
  return opened ? core::expand_card(*opened) : std::nullopt;
}

std::optional<std::string> seal_record(const core::keyring& keys, std::string_view record,
                                       std::string_view idcode) {
  return with_card(record, [&](std::string_view card) -> std::optional<std::string> {
    return core::is_compressed_card(card) ? keys.seal(card, idcode)
                                          : seal_card(keys, card, idcode);
  });
}

std::optional<std::string> open_record(const core::keyring& keys, std::string_view record,
                                       std::string_view idcode) {
  return with_card(record, [&](std::string_view card) {
    return open_sealed_card(keys, card, idcode);
  });
}

std::optional<std::string> unseal_record(const core::keyring& keys,
                                         std::string_view record,
                                         std::string_view idcode) {
  return with_card(record,
                   [&](std::string_view card) { return keys.open(card, idcode); });
}

std::optional<std::string> unseal_batch(const core::keyring& keys, std::string_view batch,
                                        std::string_view idcode) {
  return joined_batch(batch, [&](std::string_view record) {
    return unseal_record(keys, record, idcode);
  });
}

std::optional<std::string> expand_batch(std::string_view batch) {
  return joined_batch(batch, [](std::string_view record) {
    return with_card(record,
                     [](std::string_view card) { return core::expand_card(card); });
  });
}

std::optional<std::vector<std::string>>
sealed_items(const core::keyring& keys, std::string_view batch, std::string_view idcode) {
  std::vector<std::string> out;
  auto sealed = each_record(
      batch, [&](std::string_view record) { return seal_record(keys, record, idcode); },
      [&](std::string uid, std::string record) {
        out.push_back(std::move(uid));
        out.push_back(std::move(record));
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
