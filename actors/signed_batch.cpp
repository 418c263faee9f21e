#include "actors/signed_batch.hpp"

#include <caf/actor_system.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

namespace simsync {

namespace {

void append_field(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

wire_kind to_wire(store::outbox_kind kind, card_form cards) {
  switch (kind) {
  case store::outbox_kind::ask:
    return wire_kind::ask;
  case store::outbox_kind::hold:
    return wire_kind::hold;
  case store::outbox_kind::retire:
    return wire_kind::retire;
  case store::outbox_kind::batch:
    return cards == card_form::compressed ? wire_kind::compressed_batch
                                          : wire_kind::batch;
  }
  return wire_kind::batch; // not reached
}

std::optional<store::outbox_kind> from_wire(std::int32_t kind) {
  switch (static_cast<wire_kind>(kind)) {
  case wire_kind::batch:
  case wire_kind::compressed_batch:
    return store::outbox_kind::batch;
  case wire_kind::ask:
    return store::outbox_kind::ask;
  case wire_kind::retire:
    return store::outbox_kind::retire;
  case wire_kind::hold:
    return store::outbox_kind::hold;
  }
  return std::nullopt;
}

} // namespace

std::string signed_batch_text(const signed_batch& batch) {
  std::string out = "simsync-batch-v1\n";
  out.reserve(out.size() + batch.origin.size() + batch.to.size() + batch.payload.size() +
              32);
  append_field(out, batch.origin);
  append_field(out, batch.to);
  append_field(out, batch.payload);
  return out;
}

signed_batch sign_batch(caf::actor_system& sys, const core::signature_key& key,
                        std::string origin, std::string to,
                        std::vector<store::outbox_entry> entries, card_form cards) {
  std::vector<wire_entry> wire;
  wire.reserve(entries.size());
  for (auto& e : entries)
    wire.push_back({std::move(e.id), std::move(e.idcode),
                    static_cast<std::int32_t>(to_wire(e.kind, cards)),
                    std::move(e.batch)});
  std::vector<char> bytes;
  caf::binary_serializer sink{sys, bytes};
  if (auto err = sink(wire))
    throw std::runtime_error("cannot serialize a batch: " + sys.render(err));
  signed_batch out{
      std::move(origin), std::move(to), std::string(bytes.begin(), bytes.end()), {}};
  out.signature = key.sign(signed_batch_text(out));
  return out;
}

const char* to_label(batch_refusal why) {
  switch (why) {
  case batch_refusal::unknown_origin:
    return "unknown-origin";
  case batch_refusal::wrong_destination:
    return "wrong-destination";
  case batch_refusal::bad_signature:
    return "bad-signature";
  case batch_refusal::malformed:
    return "malformed";
  }
  return "unknown";
}

opened_batch open_batch(caf::actor_system& sys, const signed_batch& batch,
                        const std::string& self, const core::signature_key& key) {
  opened_batch out;
  if (batch.to != self) {
    out.refusal = batch_refusal::wrong_destination;
    return out;
  }
  if (!key.verify(signed_batch_text(batch), batch.signature)) {
    out.refusal = batch_refusal::bad_signature;
    return out;
  }
  std::vector<wire_entry> wire;
  caf::binary_deserializer source{sys, batch.payload.data(), batch.payload.size()};
  if (source(wire) || source.remaining() != 0) {
    out.refusal = batch_refusal::malformed;
    return out;
  }
  out.entries.reserve(wire.size());
  for (auto& e : wire) {
    auto kind = from_wire(e.kind);
    if (!kind) {
      out.entries.clear();
      out.refusal = batch_refusal::malformed;
      return out;
    }
    out.entries.push_back(
        {std::move(e.id), std::move(e.idcode), *kind, std::move(e.batch)});
  }
  return out;
}

} // namespace simsync
