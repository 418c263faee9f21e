#include "core/canonical.hpp"

#include "core/detail/vcard_text.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace simsync::core {

using namespace detail;

namespace {

// -- canonical lines ----------------------------------------------------------

bool is_excluded(std::string_view name) {
  return name == "PRODID" || name == "REV" || name == "UID" || name == "VERSION";
}

/// Types a reader assumes when none is written: spelling them or not is the
/// same card (iOS writes TEL;type=VOICE, Android does not).
bool is_default_type(std::string_view property, std::string_view type) {
  return (property == "TEL" && type == "voice") ||
         (property == "EMAIL" && type == "internet");
}

/// Escapes the separators of the canonical text so that distinct values can
/// never produce the same line.
void append_component(std::string* out, std::string_view text) {
  for (char c : text) {
    if (c == '\\' || c == ';' || c == '\n' || c == '\x1e' || c == '\x1f')
      out->push_back('\\');
    out->push_back(c == '\n' ? 'n' : c);
  }
}

/// A number as written, without the "tel:" of a 4.0 URI value.
std::string_view number_text(std::string_view number) {
  number = trim(number);
  if (istarts_with(number, "tel:"))
    number.remove_prefix(4);
  return number;
}

/// Keeps what dials differently ('*', '#', pauses, extensions), unlike
/// normalize_number, which keeps only what identifies the line.
void append_number(std::string* out, std::string_view number) {
  for (char c : number) {
    if (c == ' ' || c == '\t' || c == '-' || c == '.' || c == '(' || c == ')' || c == '/')
      continue;
    out->push_back(ascii_lower(c));
  }
}

/// The value part of a canonical line; false if the property says nothing.
bool append_value(std::string* out, const vcard_property& prop) {
  if (prop.binary) {
    out->append("data:");
    append_lower(*out, prop.media_type);
    out->append(";base64,");
    out->append(prop.value());
    return true;
  }
  std::size_t mark = out->size();
  if (prop.name == "TEL") {
    append_number(out, number_text(prop.value()));
  } else if (prop.name == "EMAIL") {
    append_lower(*out, trim(prop.value()));
  } else {
    std::size_t count = prop.values.size();
    while (count > 0 && trim(prop.values[count - 1]).empty())
      --count;
    for (std::size_t i = 0; i < count; ++i) {
      if (i != 0)
        out->push_back(';');
      append_component(out, trim(prop.values[i]));
    }
  }
  return out->size() != mark;
}

/// One property as a canonical line, or false if it carries nothing.
bool canonical_line(const vcard_property& prop, std::string* line) {
  line->append(prop.name);

  std::vector<std::string_view> types;
  types.reserve(prop.types.size() + 1);
  for (const std::string& type : prop.types)
    if (!is_default_type(prop.name, type))
      types.emplace_back(type);
  std::vector<std::pair<std::string_view, std::string>> params;
  for (const vcard_param& param : prop.params) {
    if (param.name == "PREF")
      types.emplace_back("pref");   // 4.0's PREF=n is 3.0's TYPE=pref
    else if (param.name != "VALUE") // implied by the normalized value
      params.emplace_back(param.name, to_lower(trim(param.value)));
  }
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  std::sort(params.begin(), params.end());

  for (std::size_t i = 0; i < types.size(); ++i) {
    line->append(i == 0 ? ";TYPE=" : ",");
    line->append(types[i]);
  }
  for (const auto& param : params) {
    line->push_back(';');
    line->append(param.first);
    line->push_back('=');
    append_component(line, param.second);
  }
  line->push_back(':');
  return append_value(line, prop);
}

} // namespace

// -- canonical form and hash --------------------------------------------------

std::string canonical_form(const vcard& card) {
  struct entry {
    std::string line;
    std::string group; ///< lower-case; empty if ungrouped
  };
  std::vector<entry> entries;
  entries.reserve(card.properties.size());
  std::size_t total = 0;
  bool grouped = false;
  for (const vcard_property& prop : card.properties) {
    if (is_excluded(prop.name))
      continue;
    entry e;
    if (!canonical_line(prop, &e.line))
      continue;
    e.group = to_lower(prop.group);
    grouped = grouped || !e.group.empty();
    total += e.line.size() + 1;
    entries.push_back(std::move(e));
  }

  // A group ties properties together (item1.TEL with its item1.X-ABLABEL):
  // each member carries its group's sorted members, so renumbering the
  // groups changes nothing but moving a label to another number does.
  if (grouped) {
    std::map<std::string, std::vector<std::string>> members;
    for (const entry& e : entries)
      if (!e.group.empty())
        members[e.group].push_back(e.line);
    std::map<std::string, std::string> signatures;
    for (auto& [group, lines] : members) {
      std::sort(lines.begin(), lines.end());
      std::string& signature = signatures[group];
      for (const std::string& member : lines) {
        signature.push_back('\x1f');
        signature.append(member);
      }
    }
    for (entry& e : entries) {
      if (e.group.empty())
        continue;
      const std::string& signature = signatures[e.group];
      e.line.push_back('\x1e');
      e.line.append(signature);
      total += signature.size() + 1;
    }
  }

  std::sort(entries.begin(), entries.end(),
            [](const entry& a, const entry& b) { return a.line < b.line; });
  std::string text;
  text.reserve(total);
  for (const entry& e : entries) {
    text.append(e.line);
    text.push_back('\n');
  }
  return text;
}

content_hash canonical_hash(const vcard& card) {
  return content_hash::of(canonical_form(card));
}

// -- identity -----------------------------------------------------------------

std::string_view explicit_uid(const vcard& card) {
  const vcard_property* uid = card.find("UID");
  return uid ? trim(uid->value()) : std::string_view();
}

std::string normalize_number(std::string_view number) {
  number = number_text(number);
  std::string out;
  out.reserve(number.size());
  for (char c : number) {
    if (c >= '0' && c <= '9')
      out.push_back(c);
    else if (c == '+' && out.empty())
      out.push_back(c);
  }
  return out == "+" ? std::string() : out;
}

namespace {

/// Trimmed, inner whitespace runs as one space, ASCII letters lower-case:
/// "Li  Wei" and "li wei" name the same person for identity purposes.
void append_normalized_name(std::string* out, std::string_view name) {
  bool space = false;
  for (char c : trim(name)) {
    if (is_blank(c)) {
      space = true;
      continue;
    }
    if (space && !out->empty())
      out->push_back(' ');
    space = false;
    out->push_back(ascii_lower(c));
  }
}

} // namespace

std::string derived_uid(const vcard& card) {
  std::string key;
  const vcard_property* fn = card.find("FN");
  if (fn && !trim(fn->value()).empty()) {
    append_normalized_name(&key, fn->value());
  } else if (const vcard_property* n = card.find("N")) {
    for (const std::string& component : n->values)
      if (!trim(component).empty()) {
        append_normalized_name(&key, component);
        key.push_back(' ');
      }
    if (!key.empty())
      key.pop_back();
  }

  std::vector<std::string> numbers;
  for (const vcard_property& prop : card.properties)
    if (prop.name == "TEL") {
      std::string number = normalize_number(prop.value());
      if (!number.empty())
        numbers.push_back(std::move(number));
    }
  if (key.empty() && numbers.empty())
    for (const vcard_property& prop : card.properties)
      if (prop.name == "EMAIL")
        numbers.push_back(to_lower(trim(prop.value())));
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());

  for (const std::string& number : numbers) {
    key.push_back('\x1f');
    key.append(number);
  }
  return "simsync-" + content_hash::of(key).hex();
}

} // namespace simsync::core
