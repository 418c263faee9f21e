#include "phone/card_label.hpp"

#include "core/vcard.hpp"

namespace simsync::phone {

namespace {

std::string name_of(const core::vcard& card) {
  if (auto* fn = card.find("FN"); fn && !fn->value().empty())
    return fn->value();
  std::string name;
  if (auto* n = card.find("N")) {
    // N is family;given;additional;prefix;suffix: show "given family".
    for (std::size_t i : {1u, 0u})
      if (i < n->values.size() && !n->values[i].empty())
        name += (name.empty() ? "" : " ") + n->values[i];
  }
  return name;
}

} // namespace

std::string card_label(std::string_view card_bytes, const std::string& fallback) {
  auto blocks = core::parse_vcards(card_bytes);
  if (blocks.empty() || !blocks.front().ok())
    return fallback;
  const auto& card = blocks.front().card;
  auto label = name_of(card);
  if (label.empty())
    label = fallback;
  if (auto* tel = card.find("TEL"); tel && !tel->value().empty())
    label += " " + tel->value();
  return label;
}

} // namespace simsync::phone
