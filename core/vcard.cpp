#include "core/vcard.hpp"

#include "core/detail/vcard_text.hpp"

#include <algorithm>
#include <cstring>

namespace simsync::core {

using namespace detail;

namespace {

// -- model helpers ------------------------------------------------------------

/// Properties whose value is a list of ';'-separated components.
bool is_structured(std::string_view name) {
  return name == "N" || name == "ADR" || name == "ORG" || name == "GENDER" ||
         name == "CLIENTPIDMAP";
}

/// A group, property or parameter name (RFC 6350 §3.3): letters, digits and
/// '-', and '_', which some exporters write. Anything else (a quote, a
/// control character, a space) could not be written back as it was read.
bool is_name(std::string_view word) {
  if (word.empty())
    return false;
  for (char c : word)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
          c == '-' || c == '_'))
      return false;
  return true;
}

bool is_begin_line(std::string_view line) {
  return iequals(trim(line), "BEGIN:VCARD");
}
bool is_end_line(std::string_view line) {
  return iequals(trim(line), "END:VCARD");
}

/// 2.1 writes encodings as bare parameters (`TEL;QUOTED-PRINTABLE:`).
bool is_encoding_name(std::string_view word) {
  return iequals(word, "QUOTED-PRINTABLE") || iequals(word, "BASE64") ||
         iequals(word, "B") || iequals(word, "8BIT") || iequals(word, "7BIT");
}

std::string_view unquote(std::string_view value) {
  value = trim(value);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  return value;
}

/// A parameter value without its quotes: they are syntax, never content.
std::string without_quotes(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value)
    if (c != '"')
      out.push_back(c);
  return std::string(trim(out));
}

/// Appends each ','-separated TYPE value, lower-cased (4.0 may quote the list).
void add_types(std::string_view list, std::vector<std::string>* types) {
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string type = without_quotes(list.substr(0, comma));
    if (!type.empty())
      types->push_back(to_lower(type));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
}

/// Resolves escapes and, for structured properties, splits on unescaped ';'.
/// 2.1 only escapes ';' and 3.0/4.0 escape more; reading both the same way is
/// what lets a 2.1 and a 3.0 export of one contact compare equal.
void split_text(std::string_view text, bool structured, std::vector<std::string>* out) {
  out->clear();
  out->emplace_back();
  if (text.find('\\') == std::string_view::npos &&
      (!structured || text.find(';') == std::string_view::npos)) {
    out->back().assign(text);
    return;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      char escaped = text[++i];
      if (escaped == 'n' || escaped == 'N') {
        out->back().push_back('\n');
      } else if (escaped == ',' || escaped == ';' || escaped == '\\' || escaped == ':') {
        out->back().push_back(escaped);
      } else {
        out->back().push_back('\\');
        out->back().push_back(escaped);
      }
    } else if (c == ';' && structured) {
      out->emplace_back();
    } else {
      out->back().push_back(c);
    }
  }
}

/// What a bare 2.1/3.0 binary TYPE (`JPEG`) is short for.
std::string_view implied_media_prefix(std::string_view property) {
  if (property == "SOUND")
    return "audio/";
  if (property == "PHOTO" || property == "LOGO")
    return "image/";
  return "application/";
}

/// The media type of a 2.1/3.0 inline binary comes from its TYPE (`JPEG`);
/// taking it out of the types makes it compare with a 4.0 data: URI.
void take_media_type(vcard_property* prop) {
  if (!prop->media_type.empty() || prop->types.empty())
    return;
  std::string type = std::move(prop->types.front());
  prop->types.erase(prop->types.begin());
  if (type.find('/') != std::string::npos)
    prop->media_type = std::move(type);
  else
    prop->media_type = std::string(implied_media_prefix(prop->name)) + type;
}

/// 3.0 names a binary's media type by its first TYPE: a binary with no media
/// type but other types, or a PREF parameter (3.0 writes it as TYPE=PREF),
/// would read back with one of them as its media type, another card. Such a
/// binary is refused (with `reason`), whichever version it came in.
bool lacks_media_type(const vcard_property& prop, std::string* reason) {
  bool has_pref_param = std::any_of(prop.params.begin(), prop.params.end(),
                                    [](const auto& p) { return p.name == "PREF"; });
  if (!prop.media_type.empty() || (prop.types.empty() && !has_pref_param))
    return false;
  *reason = "no media type in " + prop.name + ", which has a TYPE or a PREF";
  return true;
}

/// type/subtype, each an RFC 2045 token: what an inline binary's media type
/// must be to be written back the same as a 3.0 TYPE and in a 4.0 data: URI.
bool is_media_type(std::string_view media) {
  std::size_t slash = media.find('/');
  if (slash == 0 || slash == std::string_view::npos || slash + 1 == media.size())
    return false;
  for (std::size_t i = 0; i < media.size(); ++i) {
    char c = media[i];
    if (i != slash && (c <= ' ' || c >= 127 || std::strchr("()<>@,;:\\\"/[]?=", c)))
      return false;
  }
  return true;
}

bool has_empty_identity(const vcard& card) {
  for (const vcard_property& prop : card.properties) {
    if (prop.name == "FN" || prop.name == "TEL" || prop.name == "EMAIL") {
      if (!trim(prop.value()).empty())
        return false;
    } else if (prop.name == "N") {
      for (const std::string& component : prop.values)
        if (!trim(component).empty())
          return false;
    }
  }
  return true;
}

} // namespace

// -- model --------------------------------------------------------------------

void vcard_property::clear() {
  group.clear();
  name.clear();
  types.clear();
  params.clear();
  values.clear();
  binary = false;
  media_type.clear();
}

const std::string& vcard_property::value() const {
  static const std::string empty;
  return values.empty() ? empty : values.front();
}

bool vcard_property::has_type(std::string_view type) const {
  return std::find(types.begin(), types.end(), type) != types.end();
}

const vcard_property* vcard::find(std::string_view name) const {
  for (const vcard_property& prop : properties)
    if (prop.name == name)
      return &prop;
  return nullptr;
}

// -- reader -------------------------------------------------------------------

vcard_reader::vcard_reader(std::string_view body) : body_(body) {
  if (body_.substr(0, 3) == "\xEF\xBB\xBF")
    pos_ = 3;
}

bool vcard_reader::read_physical(std::size_t pos, std::string_view* text,
                                 std::size_t* next) const {
  if (pos >= body_.size())
    return false;
  const void* newline = std::memchr(body_.data() + pos, '\n', body_.size() - pos);
  std::size_t end =
      newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - body_.data())
              : body_.size();
  *next = newline ? end + 1 : end;
  *text = body_.substr(pos, end - pos);
  if (!text->empty() && text->back() == '\r')
    text->remove_suffix(1);
  return true;
}

/// Whether the head of a content line (name and parameters, before the ':')
/// declares QUOTED-PRINTABLE: a bare 2.1 parameter or ENCODING= (as
/// parse_line reads them), not the words anywhere in the head.
bool declares_quoted_printable(std::string_view head) {
  std::size_t at = head.find(';');
  while (at != std::string_view::npos) {
    std::size_t end = head.find(';', at + 1);
    std::string_view param = trim(head.substr(
        at + 1, end == std::string_view::npos ? std::string_view::npos : end - at - 1));
    std::size_t eq = param.find('=');
    if (eq == std::string_view::npos
            ? iequals(param, "QUOTED-PRINTABLE")
            : iequals(trim(param.substr(0, eq)), "ENCODING") &&
                  iequals(unquote(param.substr(eq + 1)), "QUOTED-PRINTABLE"))
      return true;
    at = end;
  }
  return false;
}

/// Reads one content line: folded lines (a break followed by a space or tab)
/// and 2.1 QUOTED-PRINTABLE soft breaks ('=' at the end of a line) joined.
/// The text points into the body when nothing had to be joined.
bool vcard_reader::read_logical(std::string_view* text, std::size_t* start,
                                std::size_t* line) {
  std::string_view first;
  std::size_t next;
  if (!read_physical(pos_, &first, &next))
    return false;
  *start = pos_;
  *line = line_;
  pos_ = next;
  ++line_;
  bool joined = false;
  int quoted_printable = -1; // unknown until a line ends with '='
  for (;;) {
    std::string_view following;
    if (!read_physical(pos_, &following, &next))
      break;
    std::string_view tail;
    bool soft_break = false;
    if (!following.empty() && (following.front() == ' ' || following.front() == '\t')) {
      tail = following.substr(1);
    } else {
      char last = joined ? (unfolded_.empty() ? '\0' : unfolded_.back())
                         : (first.empty() ? '\0' : first.back());
      if (last != '=')
        break;
      if (quoted_printable < 0) {
        std::string_view head = first.substr(0, first.find(':'));
        quoted_printable = declares_quoted_printable(head) ? 1 : 0;
      }
      if (quoted_printable == 0 || is_end_line(following))
        break;
      soft_break = true;
      tail = following;
    }
    if (!joined) {
      unfolded_.assign(first);
      joined = true;
    }
    if (soft_break)
      unfolded_.pop_back();
    unfolded_.append(tail);
    pos_ = next;
    ++line_;
  }
  *text = joined ? std::string_view(unfolded_) : first;
  return true;
}

bool vcard_reader::next(vcard_block* out) {
  out->card.version.clear();
  // A block read again reuses its properties' room: a property's lists and
  // longer strings were most of a node's allocations for checking a card.
  auto& properties = out->card.properties;
  std::size_t used = 0;
  out->error.clear();
  out->error_line = 0;

  std::string_view text;
  std::size_t next;
  skipped_text_line_ = 0;
  for (;;) {
    if (!read_physical(pos_, &text, &next)) {
      properties.clear();
      return false;
    }
    if (is_begin_line(text))
      break;
    if (skipped_text_line_ == 0 && !trim(text).empty())
      skipped_text_line_ = line_;
    pos_ = next;
    ++line_;
  }
  std::size_t card_start = pos_;
  out->line = line_;
  pos_ = next;
  ++line_;

  bool ended = false;
  std::size_t start;
  std::size_t line;
  while (read_logical(&text, &start, &line)) {
    if (is_end_line(text)) {
      ended = true;
      break;
    }
    if (is_begin_line(text)) { // the card was cut short; the next one starts here
      pos_ = start;
      line_ = line;
      break;
    }
    if (!out->ok() || trim(text).empty())
      continue;
    if (used == properties.size())
      properties.emplace_back();
    else
      properties[used].clear();
    vcard_property& prop = properties[used++];
    if (!parse_line(text, &prop, &out->error)) {
      out->error_line = line;
      continue;
    }
    if (prop.name == "VERSION") {
      out->card.version = trim(prop.value());
      --used;
    } else if (prop.name == "BEGIN" || prop.name == "END") {
      // A stray BEGIN or END (BEGIN:VCALENDAR, an END whose value was
      // damaged) is not content: written out it would split the card in
      // two, and a card must read back as what it hashed to.
      --used;
    }
  }
  properties.erase(properties.begin() + static_cast<std::ptrdiff_t>(used),
                   properties.end());
  out->bytes = body_.substr(card_start, pos_ - card_start);
  if (!ended) {
    out->error = "BEGIN:VCARD without END:VCARD";
    out->error_line = out->line;
  } else if (out->ok() && has_empty_identity(out->card)) {
    out->error = "empty card: no FN, N, TEL or EMAIL";
    out->error_line = out->line;
  }
  return true;
}

/// Splits `[group.]NAME[;param]*:value`; quotes protect ';' and ':' in
/// parameter values (4.0).
bool vcard_reader::parse_line(std::string_view line, vcard_property* prop,
                              std::string* reason) {
  std::size_t i = 0;
  while (i < line.size() && line[i] != ';' && line[i] != ':')
    ++i;
  std::string_view name = trim(line.substr(0, i));
  std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos) {
    prop->group.assign(name.substr(0, dot));
    name = name.substr(dot + 1);
  }
  if (name.empty()) {
    *reason = "content line without a property name";
    return false;
  }
  if (!is_name(name) || (dot != std::string_view::npos && !is_name(prop->group))) {
    *reason = "malformed property name";
    return false;
  }
  prop->name = to_upper(name);

  std::string_view encoding;
  std::string_view charset;
  while (i < line.size() && line[i] == ';') {
    std::size_t begin = ++i;
    bool quoted = false;
    for (; i < line.size(); ++i) {
      char c = line[i];
      if (c == '"')
        quoted = !quoted;
      else if (!quoted && (c == ';' || c == ':'))
        break;
    }
    std::string_view param = line.substr(begin, i - begin);
    std::size_t eq = param.find('=');
    if (eq == std::string_view::npos) {
      std::string_view word = trim(param);
      if (is_encoding_name(word))
        encoding = word;
      else
        add_types(word, &prop->types);
      continue;
    }
    std::string_view key = trim(param.substr(0, eq));
    if (!is_name(key)) {
      *reason = "malformed parameter name in " + prop->name;
      return false;
    }
    std::string_view value = param.substr(eq + 1);
    if (iequals(key, "TYPE"))
      add_types(value, &prop->types);
    else if (iequals(key, "ENCODING"))
      encoding = unquote(value);
    else if (iequals(key, "CHARSET"))
      charset = unquote(value);
    else
      prop->params.push_back({to_upper(key), without_quotes(value)});
  }
  if (i >= line.size()) {
    *reason = "content line without ':'";
    return false;
  }
  for (const vcard_param& param : prop->params)
    if (!detail::is_valid_utf8(param.value)) {
      *reason = "invalid UTF-8 in a parameter of " + prop->name;
      return false;
    }
  return decode_value(line.substr(i + 1), encoding, charset, prop, reason);
}

bool vcard_reader::decode_value(std::string_view raw, std::string_view encoding,
                                std::string_view charset, vcard_property* prop,
                                std::string* reason) {
  prop->values.resize(1);
  if (iequals(encoding, "B") || iequals(encoding, "BASE64")) {
    prop->binary = true;
    take_media_type(prop);
    if (!prop->media_type.empty() && !is_media_type(prop->media_type)) {
      *reason = "bad media type in " + prop->name;
      return false;
    }
    if (lacks_media_type(*prop, reason))
      return false;
    if (!normalize_base64(raw, &prop->values.front())) {
      *reason = "bad base64 in " + prop->name;
      return false;
    }
    return true;
  }
  if (istarts_with(raw, "data:")) {
    std::size_t comma = raw.find(',');
    std::string_view head = raw.substr(0, comma);
    if (comma != std::string_view::npos && head.size() >= 12 &&
        iequals(head.substr(head.size() - 7), ";base64")) {
      prop->binary = true;
      std::string_view media = trim(head.substr(5, head.size() - 12));
      // A bare "jpeg" means what 3.0's TYPE=JPEG means.
      if (!media.empty() && media.find('/') == std::string_view::npos)
        prop->media_type = implied_media_prefix(prop->name);
      append_lower(prop->media_type, media);
      if (!prop->media_type.empty() && !is_media_type(prop->media_type)) {
        *reason = "bad media type in " + prop->name;
        return false;
      }
      if (lacks_media_type(*prop, reason))
        return false;
      if (!normalize_base64(raw.substr(comma + 1), &prop->values.front())) {
        *reason = "bad base64 in " + prop->name;
        return false;
      }
      return true;
    }
  }

  std::string_view text = raw;
  if (iequals(encoding, "QUOTED-PRINTABLE")) {
    if (!decode_quoted_printable(text, &decoded_)) {
      *reason = "bad quoted-printable in " + prop->name;
      return false;
    }
    text = decoded_;
  }
  if (!charset.empty() && !is_utf8_charset(charset)) {
    switch (convert_to_utf8(charset, text, &converted_)) {
    case conversion::ok:
      text = converted_;
      break;
    case conversion::unknown_charset:
      *reason = "unknown charset " + std::string(charset);
      return false;
    case conversion::invalid_text:
      *reason = "invalid " + std::string(charset) + " text in " + prop->name;
      return false;
    }
  }
  if (!detail::is_valid_utf8(text)) {
    *reason = "invalid UTF-8 in " + prop->name;
    return false;
  }
  split_text(text, is_structured(prop->name), &prop->values);
  return true;
}

std::vector<vcard_block> parse_vcards(std::string_view body) {
  std::vector<vcard_block> blocks;
  vcard_reader reader(body);
  vcard_block block;
  while (reader.next(&block))
    blocks.push_back(block);
  return blocks;
}

// -- writer -------------------------------------------------------------------

namespace {

/// Appends a content line folded at 75 octets per physical line (RFC 6350
/// 3.2), cutting only between UTF-8 sequences.
void append_folded(std::string* out, std::string_view line) {
  constexpr std::size_t limit = 75;
  std::size_t width = limit;
  while (line.size() > width) {
    std::size_t cut = width;
    while (cut > 1 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
      --cut;
    out->append(line.substr(0, cut));
    out->append("\r\n ");
    line.remove_prefix(cut);
    width = limit - 1; // the leading space counts
  }
  out->append(line);
  out->append("\r\n");
}

void append_escaped(std::string* out, std::string_view text) {
  for (char c : text) {
    switch (c) {
    case '\\':
      out->append("\\\\");
      break;
    case '\n':
      out->append("\\n");
      break;
    case ',':
      out->append("\\,");
      break;
    case ';':
      out->append("\\;");
      break;
    default:
      out->push_back(c);
    }
  }
}

/// Quotes a parameter value holding ':', ';' or ','. A '"' cannot be written
/// inside one (short of RFC 6868, which phones do not read), so it is dropped.
void append_param_value(std::string* out, std::string_view value, bool is_list = false) {
  bool quote = value.find_first_of(is_list ? ";:" : ";:,") != std::string_view::npos;
  if (quote)
    out->push_back('"');
  for (char c : value)
    if (c != '"')
      out->push_back(c);
  if (quote)
    out->push_back('"');
}

/// The TYPE that stands for a binary's media type in 3.0: "JPEG" for a
/// PHOTO's image/jpeg, the whole media type where no short form exists.
std::string media_type_token(const vcard_property& prop) {
  std::string_view media = prop.media_type;
  std::string_view prefix = implied_media_prefix(prop.name);
  if (media.size() > prefix.size() && media.substr(0, prefix.size()) == prefix)
    return to_upper(media.substr(prefix.size()));
  return std::string(media);
}

/// 3.0 marks a preferred value with TYPE=PREF, 4.0 with PREF=1.
void append_property(std::string* line, const vcard_property& prop,
                     vcard_version version) {
  const bool v4 = version == vcard_version::v4_0;
  if (!prop.group.empty()) {
    line->append(prop.group);
    line->push_back('.');
  }
  line->append(prop.name);
  if (!v4 && prop.binary)
    line->append(";ENCODING=b"); // first, as iOS writes it

  bool has_pref_param = false;
  for (const vcard_param& param : prop.params)
    has_pref_param = has_pref_param || param.name == "PREF";
  // 3.0 names a binary's media type by the first TYPE, as 2.1 did.
  std::string types = !v4 && prop.binary ? media_type_token(prop) : std::string();
  for (const std::string& type : prop.types) {
    if (v4 && type == "pref")
      continue;
    if (!types.empty())
      types.push_back(',');
    if (v4)
      types.append(type);
    else
      append_upper(types, type);
  }
  if (!v4 && has_pref_param && !prop.has_type("pref"))
    types.append(types.empty() ? "PREF" : ",PREF");
  if (!types.empty()) {
    line->append(";TYPE=");
    append_param_value(line, types, /*is_list=*/true);
  }
  if (v4 && !has_pref_param && prop.has_type("pref"))
    line->append(";PREF=1");

  for (const vcard_param& param : prop.params) {
    if ((!v4 && param.name == "PREF") || (prop.binary && param.name == "VALUE"))
      continue;
    line->push_back(';');
    line->append(param.name);
    line->push_back('=');
    append_param_value(line, param.value);
  }

  if (prop.binary) {
    if (v4) {
      line->append(":data:"); // RFC 2397 allows "data:;base64," when the type is unknown
      line->append(prop.media_type);
      line->append(";base64,");
    } else {
      line->push_back(':');
    }
    line->append(prop.value());
    return;
  }
  line->push_back(':');
  for (std::size_t i = 0; i < prop.values.size(); ++i) {
    if (i != 0)
      line->push_back(';');
    append_escaped(line, prop.values[i]);
  }
}

} // namespace

bool is_valid_utf8(std::string_view bytes) {
  return detail::is_valid_utf8(bytes);
}

std::string serialize(const vcard& card, vcard_version version) {
  std::string out = "BEGIN:VCARD\r\n";
  out.append(version == vcard_version::v4_0 ? "VERSION:4.0\r\n" : "VERSION:3.0\r\n");
  std::string line;
  for (const vcard_property& prop : card.properties) {
    line.clear();
    append_property(&line, prop, version);
    append_folded(&out, line);
  }
  out.append("END:VCARD\r\n");
  return out;
}

} // namespace simsync::core
