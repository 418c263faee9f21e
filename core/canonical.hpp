#pragma once
// What a card means, independent of how a phone spelled it: the canonical
// form that decides "same contact content", and the identity (UID) of a card.

#include "core/content_hash.hpp"
#include "core/vcard.hpp"

#include <string>
#include <string_view>

namespace simsync::core {

/// The canonical text of a card: one line per property, sorted, with names
/// upper-case, TYPE values lower-case, sorted and without defaults (TEL
/// voice, EMAIL internet), phone numbers without spaces, dashes, dots or
/// parentheses, e-mail addresses lower-case, text trimmed, empty trailing
/// components and empty properties dropped, inline binaries as media type
/// plus normalized base64, groups by their members rather than their names.
/// VERSION, PRODID, REV and UID are left out: UID is the identity, the rest
/// is bookkeeping. Two spellings of one contact give the same text.
std::string canonical_form(const vcard& card);

/// content_hash::of(canonical_form(card)).
content_hash canonical_hash(const vcard& card);

/// The card's own UID, trimmed; empty if it has none.
std::string_view explicit_uid(const vcard& card);

/// A phone number reduced to what identifies it: a leading '+' and the
/// digits ("tel:" and any separators dropped). "+86 138-0013-8000" and
/// "+8613800138000" give the same.
std::string normalize_number(std::string_view number);

/// A stable UID for a card without one: "simsync-" and 32 hex digits hashed
/// from the normalized name (FN, else N) and the sorted normalized numbers;
/// from the e-mail addresses only if it has neither. Re-exporting the same
/// contact gives the same UID, whatever the vCard version or order.
std::string derived_uid(const vcard& card);

} // namespace simsync::core
