#pragma once
// The vCard codec: reads what phones export (vCard 2.1, 3.0, 4.0) into one
// model, and writes that model as vCard 3.0 or 4.0.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::core {

/// A parameter of a property other than TYPE, PREF's 3.0 spelling, ENCODING
/// and CHARSET, which the parser folds into the property itself.
struct vcard_param {
  std::string name;  ///< upper-case
  std::string value; ///< without its quotes, as written
};

/// One content line, decoded: transfer encoding and charset undone, escapes
/// resolved, structured values split.
struct vcard_property {
  std::string group;               ///< "item1" for item1.TEL; empty if none
  std::string name;                ///< upper-case: "TEL", "X-ANDROID-CUSTOM"
  std::vector<std::string> types;  ///< lower-case TYPE values, 2.1 bare ones included
  std::vector<vcard_param> params; ///< unknown and other parameters, in order
  /// UTF-8 text. Structured properties (N, ADR, ORG, GENDER, CLIENTPIDMAP)
  /// have one element per ';'-separated component, others exactly one. For
  /// an inline binary the one element is its base64, without whitespace.
  std::vector<std::string> values;
  bool binary = false;    ///< inline data: ENCODING=b/BASE64 or a data: URI
  std::string media_type; ///< of an inline binary, e.g. "image/jpeg"; may be empty

  /// The first component, or an empty string.
  const std::string& value() const;
  /// Empties every member, keeping the room of its own strings and lists
  /// (not of the strings in its lists): a reader fills the property again.
  void clear();
  bool has_type(std::string_view type) const;
};

/// A card: its properties in the order written.
struct vcard {
  std::string version; ///< as written: "2.1", "3.0", "4.0"; may be empty
  std::vector<vcard_property> properties; ///< without BEGIN, END and VERSION

  /// The first property with this (upper-case) name, or nullptr.
  const vcard_property* find(std::string_view name) const;
};

/// One BEGIN:VCARD..END:VCARD block of a body: the card, or why it is not one.
struct vcard_block {
  /// The card's original bytes, from its BEGIN line to its END line and that
  /// line's break (if the body has one there), so blocks concatenate back
  /// into a valid body.
  std::string_view bytes;
  std::size_t line = 0; ///< 1-based line of BEGIN:VCARD in the body
  vcard card;           ///< meaningful only if ok()
  std::size_t error_line = 0;
  std::string error; ///< empty if the card parsed

  bool ok() const { return error.empty(); }
};

/// Walks the cards of a body one by one. A malformed card is reported in its
/// block and skipped; the next card is read as if it had not been there.
/// Text outside BEGIN:VCARD..END:VCARD is skipped (a leading UTF-8 BOM and
/// blank lines silently; anything else is told by skipped_text_line()).
class vcard_reader {
public:
  /// The body must outlive the reader and the blocks it fills.
  explicit vcard_reader(std::string_view body);

  /// Reads the next card into *out; false when the body has no more cards.
  bool next(vcard_block* out);

  /// The 1-based line where the last call of next() first skipped text that
  /// is outside any card and not blank (before the card it read, or after
  /// the last card when it returned false); 0 if it skipped none. A phone
  /// does not write such text: it is a sign of a damaged or foreign body.
  std::size_t skipped_text_line() const { return skipped_text_line_; }

private:
  bool read_physical(std::size_t pos, std::string_view* text, std::size_t* next) const;
  bool read_logical(std::string_view* text, std::size_t* start, std::size_t* line);
  bool parse_line(std::string_view line, vcard_property* prop, std::string* reason);
  bool decode_value(std::string_view raw, std::string_view encoding,
                    std::string_view charset, vcard_property* prop, std::string* reason);

  std::string_view body_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1; ///< line number of the text at pos_
  std::size_t skipped_text_line_ = 0;
  // Scratch buffers, reused from line to line so decoding rarely allocates.
  std::string unfolded_;
  std::string decoded_;
  std::string converted_;
};

/// Every block of a body, in order.
std::vector<vcard_block> parse_vcards(std::string_view body);

enum class vcard_version { v3_0, v4_0 };

/// Writes a card as vCard 3.0 or 4.0: CRLF line breaks, lines folded at 75
/// octets (never inside a UTF-8 sequence), text escaped, types as TYPE=,
/// inline binaries as ENCODING=b (3.0) or a data: URI (4.0).
std::string serialize(const vcard& card, vcard_version version);

/// True if `bytes` are well-formed UTF-8. A card exported in another charset
/// (GBK, Big5...) is not, and cannot travel as JSON text as it is.
bool is_valid_utf8(std::string_view bytes);

} // namespace simsync::core
