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
                        std::vector<store::outbox_entry> entries) {
  std::vector<char> bytes;
  caf::binary_serializer sink{sys, bytes};
  if (auto err = sink(entries))
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
  caf::binary_deserializer source{sys, batch.payload.data(), batch.payload.size()};
  if (source(out.entries) || source.remaining() != 0) {
    out.entries.clear();
    out.refusal = batch_refusal::malformed;
  }
  return out;
}

} // namespace simsync
