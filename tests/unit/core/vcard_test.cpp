#include "core/canonical.hpp"
#include "core/vcard.hpp"
#include "tests/unit/core/parse_one.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace simsync::core {
namespace {

// -- helpers --------------------------------------------------------------------

const vcard_property& prop(const vcard& card, std::string_view name,
                           std::size_t nth = 0) {
  for (const vcard_property& p : card.properties)
    if (p.name == name && nth-- == 0)
      return p;
  static const vcard_property missing;
  ADD_FAILURE() << "no property " << name;
  return missing;
}

using strings = std::vector<std::string>;

/// Parses a body holding one bad card; returns its block.
vcard_block parse_bad(std::string_view body) {
  std::vector<vcard_block> blocks = parse_vcards(body);
  EXPECT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks.empty() || blocks[0].ok());
  return blocks.empty() ? vcard_block{} : blocks[0];
}

// -- vCard 2.1 (Android) ---------------------------------------------------------

// Android's exporter: QUOTED-PRINTABLE UTF-8 with a soft line break, bare
// 2.1 parameters, CRLF line breaks.
constexpr std::string_view android_utf8 =
    "BEGIN:VCARD\r\n"
    "VERSION:2.1\r\n"
    "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:=E6=9D=8E;=E5=9B=9B;;;\r\n"
    "FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:=E6=9D=8E=E5=9B=9B=20=E6=9D=8E=\r\n"
    "=E5=9B=9B\r\n"
    "TEL;CELL;PREF:+86 138-0013-8000\r\n"
    "TEL;HOME;VOICE:010-6552 9988\r\n"
    "EMAIL;HOME:lisi@example.com\r\n"
    "NOTE;ENCODING=QUOTED-PRINTABLE:line one=0D=0Aline two\r\n"
    "END:VCARD\r\n";

TEST(vcard_21, android_quoted_printable_utf8) {
  vcard card = parse_one(android_utf8);
  EXPECT_EQ(card.version, "2.1");
  EXPECT_EQ(prop(card, "N").values, (strings{"李", "四", "", "", ""}));
  EXPECT_EQ(prop(card, "FN").value(), "李四 李四"); // soft break joined
  EXPECT_EQ(prop(card, "NOTE").value(), "line one\nline two");
}

TEST(vcard_21, bare_parameters_are_types) {
  vcard card = parse_one(android_utf8);
  EXPECT_EQ(prop(card, "TEL", 0).types, (strings{"cell", "pref"}));
  EXPECT_EQ(prop(card, "TEL", 0).value(), "+86 138-0013-8000");
  EXPECT_EQ(prop(card, "TEL", 1).types, (strings{"home", "voice"}));
  EXPECT_EQ(prop(card, "EMAIL").types, (strings{"home"}));
  EXPECT_TRUE(prop(card, "TEL", 1).params.empty());
}

TEST(vcard_21, gbk_quoted_printable_is_converted) {
  // 李四 and 张三 in GBK, as older Chinese Android builds export them.
  vcard card = parse_one("BEGIN:VCARD\r\n"
                         "VERSION:2.1\r\n"
                         "N;CHARSET=GBK;ENCODING=QUOTED-PRINTABLE:=C0=EE;=CB=C4;;;\r\n"
                         "FN;CHARSET=GBK;QUOTED-PRINTABLE:=D5=C5=C8=FD\r\n"
                         "TEL;CELL:13800138000\r\n"
                         "END:VCARD\r\n");
  EXPECT_EQ(prop(card, "N").values, (strings{"李", "四", "", "", ""}));
  EXPECT_EQ(prop(card, "FN").value(), "张三");
}

TEST(vcard_21, gb18030_and_big5_8bit) {
  vcard card = parse_one("BEGIN:VCARD\n"
                         "VERSION:2.1\n"
                         "FN;CHARSET=GB18030:\xCD\xF5\xD0\xA1\xC3\xF7\n"
                         "ORG;CHARSET=Big5:\xA4\xFD\xA4\x70\xA9\xFA\n"
                         "END:VCARD\n");
  EXPECT_EQ(prop(card, "FN").value(), "王小明");
  EXPECT_EQ(prop(card, "ORG").value(), "王小明");
}

TEST(vcard_21, ascii_in_a_foreign_charset_and_latin1) {
  vcard card = parse_one("BEGIN:VCARD\n"
                         "VERSION:2.1\n"
                         "FN;CHARSET=GBK:Li Si\n"
                         "NOTE;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:Jos=E9\n"
                         "END:VCARD\n");
  EXPECT_EQ(prop(card, "FN").value(), "Li Si");
  EXPECT_EQ(prop(card, "NOTE").value(), "José");
}

TEST(vcard_21, base64_photo_with_indented_lines_and_blank_end) {
  vcard card =
      parse_one("BEGIN:VCARD\r\n"
                "VERSION:2.1\r\n"
                "FN:Anna\r\n"
                "PHOTO;ENCODING=BASE64;JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYF\r\n"
                "  BAYGBQYGBgYHBwYIChAKCgkJChQODwwQFxQYGBcU\r\n"
                "  FhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCU=\r\n"
                "\r\n"
                "END:VCARD\r\n");
  const vcard_property& photo = prop(card, "PHOTO");
  EXPECT_TRUE(photo.binary);
  EXPECT_EQ(photo.media_type, "image/jpeg");
  EXPECT_TRUE(photo.types.empty());
  // Whitespace of the folding is not part of the base64.
  EXPECT_EQ(photo.value(),
            "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYGBgYHBwYIChAKCgkJChQODwwQ"
            "FxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCU=");
}

// -- vCard 3.0 (iOS) ----------------------------------------------------------------

constexpr std::string_view ios_card =
    "BEGIN:VCARD\r\n"
    "VERSION:3.0\r\n"
    "PRODID:-//Apple Inc.//iPhone OS 17.2//EN\r\n"
    "N:Appleseed;John;Q.;Dr.;\r\n"
    "FN:Dr. John Q. Appleseed\r\n"
    "ORG:Apple Inc.;Engineering\\; Devices;\r\n"
    "EMAIL;type=INTERNET;type=WORK;type=pref:John.Appleseed@Apple.com\r\n"
    "item1.TEL;type=CELL;type=VOICE;type=pref:(408) 555-0123\r\n"
    "item1.X-ABLabel:_$!<Mobile>!$_\r\n"
    "item2.ADR;type=HOME:;;1 Infinite Loop;Cupertino;CA;95014;USA\r\n"
    "NOTE:Met at WWDC\\, 2023\\nBring badge \\\\ lanyard\r\n"
    "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQAASABIAAD/4QBMRXhpZgAATU0AKgAAAA\r\n"
    " gAAYdpAAQAAAABAAAAGgAAAAAAA6ABAAMAAAABAAEAAKACAAQAAAABAAAAZKADAAQAAAABAAAA\r\n"
    " ZAAAAAD/7QA4UGhvdG9zaG9wIDMuMAA4QklNBAQAAAAAAAA4QklNBCUAAAAAABDUHYzZjwCyBO\r\n"
    "\tmACYzpmMA=\r\n"
    "X-SOCIALPROFILE;type=twitter;x-user=jappleseed:http://twitter.com/jappleseed\r\n"
    "END:VCARD\r\n";

TEST(vcard_30, ios_card_with_groups_escapes_and_photo) {
  vcard card = parse_one(ios_card);
  EXPECT_EQ(card.version, "3.0");
  EXPECT_EQ(prop(card, "N").values, (strings{"Appleseed", "John", "Q.", "Dr.", ""}));
  EXPECT_EQ(prop(card, "ORG").values,
            (strings{"Apple Inc.", "Engineering; Devices", ""}));
  EXPECT_EQ(prop(card, "NOTE").value(), "Met at WWDC, 2023\nBring badge \\ lanyard");
  EXPECT_EQ(prop(card, "EMAIL").types, (strings{"internet", "work", "pref"}));

  const vcard_property& tel = prop(card, "TEL");
  EXPECT_EQ(tel.group, "item1");
  EXPECT_EQ(tel.types, (strings{"cell", "voice", "pref"}));
  EXPECT_EQ(prop(card, "X-ABLABEL").group, "item1");
  EXPECT_EQ(prop(card, "X-ABLABEL").value(), "_$!<Mobile>!$_");
  EXPECT_EQ(prop(card, "ADR").values,
            (strings{"", "", "1 Infinite Loop", "Cupertino", "CA", "95014", "USA"}));

  const vcard_property& photo = prop(card, "PHOTO");
  EXPECT_TRUE(photo.binary);
  EXPECT_EQ(photo.media_type, "image/jpeg");
  EXPECT_EQ(photo.value(),
            "/9j/4AAQSkZJRgABAQAASABIAAD/4QBMRXhpZgAATU0AKgAAAA"
            "gAAYdpAAQAAAABAAAAGgAAAAAAA6ABAAMAAAABAAEAAKACAAQAAAABAAAAZKADAAQAAAABAAAA"
            "ZAAAAAD/7QA4UGhvdG9zaG9wIDMuMAA4QklNBAQAAAAAAAA4QklNBCUAAAAAABDUHYzZjwCyBO"
            "mACYzpmMA=");
}

TEST(vcard_30, unknown_properties_and_parameters_are_kept) {
  vcard card = parse_one(ios_card);
  const vcard_property& social = prop(card, "X-SOCIALPROFILE");
  EXPECT_EQ(social.types, (strings{"twitter"}));
  ASSERT_EQ(social.params.size(), 1u);
  EXPECT_EQ(social.params[0].name, "X-USER");
  EXPECT_EQ(social.params[0].value, "jappleseed");
  EXPECT_EQ(social.value(), "http://twitter.com/jappleseed");
  EXPECT_EQ(prop(card, "PRODID").value(), "-//Apple Inc.//iPhone OS 17.2//EN");
}

TEST(vcard_30, names_are_case_insensitive) {
  vcard card =
      parse_one("begin:vcard\nversion:3.0\nfn:Anna\ntel;Type=Cell:1\nEnd:VCard\n");
  EXPECT_EQ(prop(card, "FN").value(), "Anna");
  EXPECT_EQ(prop(card, "TEL").types, (strings{"cell"}));
}

// -- vCard 4.0 ---------------------------------------------------------------------

constexpr std::string_view v4_card =
    "BEGIN:VCARD\n"
    "VERSION:4.0\n"
    "UID:urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1\n"
    "FN:Jane Doe\n"
    "N:Doe;Jane;;;\n"
    "TEL;VALUE=uri;TYPE=\"cell,voice\";PREF=1:tel:+1-555-555-0100\n"
    "work.TEL;VALUE=uri;TYPE=work:tel:+1-555-555-0199;ext=12\n"
    "work.ORG:Example Corp\n"
    "EMAIL;TYPE=home:jane@example.org\n"
    "PHOTO:data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlE\n"
    " QVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\n"
    "GEO:geo:37.386013,-122.082932\n"
    "END:VCARD\n";

TEST(vcard_40, groups_uri_values_and_data_photo) {
  vcard card = parse_one(v4_card);
  EXPECT_EQ(card.version, "4.0");
  const vcard_property& tel = prop(card, "TEL", 0);
  EXPECT_EQ(tel.types, (strings{"cell", "voice"}));
  ASSERT_EQ(tel.params.size(), 2u);
  EXPECT_EQ(tel.params[0].name, "VALUE");
  EXPECT_EQ(tel.params[1].name, "PREF");
  EXPECT_EQ(tel.params[1].value, "1");
  EXPECT_EQ(tel.value(), "tel:+1-555-555-0100");
  EXPECT_EQ(prop(card, "TEL", 1).group, "work");
  EXPECT_EQ(prop(card, "TEL", 1).value(), "tel:+1-555-555-0199;ext=12");
  EXPECT_EQ(prop(card, "ORG").group, "work");
  EXPECT_EQ(prop(card, "GEO").value(), "geo:37.386013,-122.082932");

  const vcard_property& photo = prop(card, "PHOTO");
  EXPECT_TRUE(photo.binary);
  EXPECT_EQ(photo.media_type, "image/png");
  EXPECT_EQ(photo.value(), "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlE"
                           "QVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==");
}

TEST(vcard_40, quoted_parameter_values_may_hold_colons) {
  vcard card = parse_one("BEGIN:VCARD\nVERSION:4.0\nFN:A\n"
                         "ADR;LABEL=\"1 Main St.\\nTown: North\":;;1 Main St.;Town;;;\n"
                         "END:VCARD\n");
  const vcard_property& adr = prop(card, "ADR");
  ASSERT_EQ(adr.params.size(), 1u);
  EXPECT_EQ(adr.params[0].value, "1 Main St.\\nTown: North");
  EXPECT_EQ(adr.values[2], "1 Main St.");
}

// -- bodies ---------------------------------------------------------------------

TEST(vcard_body, many_cards_bom_mixed_breaks_and_text_between) {
  std::string body = "\xEF\xBB\xBF";
  body += android_utf8;
  body += "\r\n\r\nsome trailer a phone wrote\n";
  body += ios_card;
  body += v4_card;
  std::vector<vcard_block> blocks = parse_vcards(body);
  ASSERT_EQ(blocks.size(), 3u);
  for (const vcard_block& block : blocks)
    EXPECT_TRUE(block.ok()) << block.error;
  EXPECT_EQ(blocks[0].line, 1u);
  EXPECT_EQ(blocks[1].line, 14u);
  EXPECT_EQ(blocks[2].line, 31u);
  // Original bytes, exactly, for a lossless round trip.
  EXPECT_EQ(blocks[0].bytes, android_utf8);
  EXPECT_EQ(blocks[1].bytes, ios_card);
  EXPECT_EQ(blocks[2].bytes, v4_card);
  EXPECT_EQ(prop(blocks[2].card, "FN").value(), "Jane Doe");
}

TEST(vcard_body, last_card_without_final_break) {
  std::vector<vcard_block> blocks = parse_vcards("BEGIN:VCARD\nFN:A\nEND:VCARD");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_TRUE(blocks[0].ok());
  EXPECT_EQ(blocks[0].bytes, "BEGIN:VCARD\nFN:A\nEND:VCARD");
}

TEST(vcard_body, empty_and_cardless_bodies) {
  EXPECT_TRUE(parse_vcards("").empty());
  EXPECT_TRUE(parse_vcards("\r\n\r\nhello\n").empty());
}

TEST(vcard_body, the_reader_tells_where_it_skipped_text_outside_a_card) {
  std::string body = "\xEF\xBB\xBF\r\n  \r\nBEGIN:VCARD\nFN:A\nEND:VCARD\n" // lines 1-5
                     "noise\nBEGIN:VCARD\nFN:B\nEND:VCARD\n"                // lines 6-9
                     "\n\nBEGIN:VCARD\nFN:C\nEND:VCARD\ntail";              // lines 10-15
  vcard_reader reader(body);
  vcard_block block;
  ASSERT_TRUE(reader.next(&block));
  EXPECT_EQ(reader.skipped_text_line(), 0u); // a BOM and blank lines are not text
  ASSERT_TRUE(reader.next(&block));
  EXPECT_EQ(reader.skipped_text_line(), 6u);
  ASSERT_TRUE(reader.next(&block));
  EXPECT_EQ(reader.skipped_text_line(), 0u);
  EXPECT_FALSE(reader.next(&block));
  EXPECT_EQ(reader.skipped_text_line(), 15u);
}

// -- per-card errors ---------------------------------------------------------------

TEST(vcard_errors, truncated_card_does_not_spoil_the_next) {
  std::vector<vcard_block> blocks = parse_vcards("BEGIN:VCARD\n"
                                                 "VERSION:3.0\n"
                                                 "FN:Cut Short\n"
                                                 "BEGIN:VCARD\n"
                                                 "VERSION:3.0\n"
                                                 "FN:Whole\n"
                                                 "END:VCARD\n"
                                                 "BEGIN:VCARD\n"
                                                 "FN:At the end\n");
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_FALSE(blocks[0].ok());
  EXPECT_EQ(blocks[0].error, "BEGIN:VCARD without END:VCARD");
  EXPECT_EQ(blocks[0].error_line, 1u);
  EXPECT_EQ(blocks[0].bytes, "BEGIN:VCARD\nVERSION:3.0\nFN:Cut Short\n");
  ASSERT_TRUE(blocks[1].ok());
  EXPECT_EQ(blocks[1].line, 4u);
  EXPECT_EQ(prop(blocks[1].card, "FN").value(), "Whole");
  EXPECT_FALSE(blocks[2].ok());
  EXPECT_EQ(blocks[2].error_line, 8u);
}

TEST(vcard_errors, line_without_colon) {
  vcard_block block =
      parse_bad("BEGIN:VCARD\nVERSION:3.0\nFN:A\nTEL;CELL 555\nEND:VCARD\n");
  EXPECT_EQ(block.error, "content line without ':'");
  EXPECT_EQ(block.error_line, 4u);
}

TEST(vcard_errors, invalid_utf8) {
  vcard_block block = parse_bad("BEGIN:VCARD\nVERSION:3.0\nFN:Ren\xE9\nEND:VCARD\n");
  EXPECT_EQ(block.error, "invalid UTF-8 in FN");
  EXPECT_EQ(block.error_line, 3u);
  // Decoded bytes count, not just the raw line: =C0=AF is an overlong '/'.
  block = parse_bad("BEGIN:VCARD\nFN;ENCODING=QUOTED-PRINTABLE:=C0=AF\nEND:VCARD\n");
  EXPECT_EQ(block.error, "invalid UTF-8 in FN");
  EXPECT_EQ(block.error_line, 2u);
}

TEST(vcard_errors, bad_quoted_printable) {
  vcard_block block = parse_bad(
      "BEGIN:VCARD\nVERSION:2.1\nFN;ENCODING=QUOTED-PRINTABLE:=E6=9Z\nEND:VCARD\n");
  EXPECT_EQ(block.error, "bad quoted-printable in FN");
  EXPECT_EQ(block.error_line, 3u);
}

TEST(vcard_errors, bad_base64) {
  vcard_block block =
      parse_bad("BEGIN:VCARD\nVERSION:3.0\nFN:A\n"
                "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4A*QSkZJRg==\nEND:VCARD\n");
  EXPECT_EQ(block.error, "bad base64 in PHOTO");
  EXPECT_EQ(block.error_line, 4u);
  block = parse_bad("BEGIN:VCARD\nVERSION:4.0\nFN:A\n"
                    "PHOTO:data:image/png;base64,iVBORw0=KGgo\nEND:VCARD\n");
  EXPECT_EQ(block.error, "bad base64 in PHOTO");
}

TEST(vcard_errors, unknown_charset) {
  vcard_block block =
      parse_bad("BEGIN:VCARD\nVERSION:2.1\nFN;CHARSET=X-KLINGON:Worf\nEND:VCARD\n");
  EXPECT_EQ(block.error, "unknown charset X-KLINGON");
  EXPECT_EQ(block.error_line, 3u);
}

TEST(vcard_errors, text_invalid_in_its_charset) {
  // 0xFF never starts a GBK character.
  vcard_block block = parse_bad("BEGIN:VCARD\nFN;CHARSET=GBK:\xFF\xFF\nEND:VCARD\n");
  EXPECT_EQ(block.error, "invalid GBK text in FN");
}

TEST(vcard_errors, empty_card) {
  vcard_block block = parse_bad("BEGIN:VCARD\nVERSION:3.0\nNOTE:nothing else\nN:;;;;\n"
                                "END:VCARD\n");
  EXPECT_EQ(block.error, "empty card: no FN, N, TEL or EMAIL");
  EXPECT_EQ(block.error_line, 1u);
}

TEST(vcard_errors, bad_cards_leave_good_ones_alone) {
  std::string body = "BEGIN:VCARD\nFN:Good One\nEND:VCARD\n"
                     "BEGIN:VCARD\nFN\nEND:VCARD\n"
                     "BEGIN:VCARD\nFN:Good Two\nEND:VCARD\n";
  std::vector<vcard_block> blocks = parse_vcards(body);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_TRUE(blocks[0].ok());
  EXPECT_FALSE(blocks[1].ok());
  EXPECT_EQ(blocks[1].error_line, 5u);
  EXPECT_EQ(blocks[1].bytes, "BEGIN:VCARD\nFN\nEND:VCARD\n");
  ASSERT_TRUE(blocks[2].ok());
  EXPECT_EQ(prop(blocks[2].card, "FN").value(), "Good Two");
}

// -- serializer -----------------------------------------------------------------------

/// Splits serialized output into physical lines; every one must end in CRLF.
strings physical_lines(const std::string& text) {
  strings lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find("\r\n", pos);
    EXPECT_NE(end, std::string::npos);
    if (end == std::string::npos)
      break;
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 2;
  }
  return lines;
}

TEST(vcard_serialize, v30_types_escapes_and_photo) {
  vcard card = parse_one(android_utf8);
  std::string out = serialize(card, vcard_version::v3_0);
  EXPECT_EQ(out.rfind("BEGIN:VCARD\r\nVERSION:3.0\r\n", 0), 0u);
  EXPECT_NE(out.find("\r\nTEL;TYPE=CELL,PREF:+86 138-0013-8000\r\n"), std::string::npos);
  EXPECT_NE(out.find("\r\nN:李;四;;;\r\n"), std::string::npos);
  EXPECT_NE(out.find("\r\nNOTE:line one\\nline two\r\n"), std::string::npos);

  vcard ios = parse_one(ios_card);
  out = serialize(ios, vcard_version::v3_0);
  EXPECT_NE(out.find("\r\nORG:Apple Inc.;Engineering\\; Devices;\r\n"),
            std::string::npos);
  EXPECT_NE(out.find("\r\nitem1.TEL;TYPE=CELL,VOICE,PREF:(408) 555-0123\r\n"),
            std::string::npos);
  EXPECT_NE(out.find("\r\nPHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQ"), std::string::npos);
  EXPECT_NE(out.find("NOTE:Met at WWDC\\, 2023\\nBring badge \\\\ lanyard"),
            std::string::npos);
}

TEST(vcard_serialize, v40_data_uri_and_pref) {
  vcard ios = parse_one(ios_card);
  std::string out = serialize(ios, vcard_version::v4_0);
  EXPECT_EQ(out.rfind("BEGIN:VCARD\r\nVERSION:4.0\r\n", 0), 0u);
  EXPECT_NE(out.find("\r\nPHOTO:data:image/jpeg;base64,/9j/4AAQ"), std::string::npos);
  EXPECT_NE(out.find("\r\nitem1.TEL;TYPE=cell,voice;PREF=1:(408) 555-0123\r\n"),
            std::string::npos);

  vcard v4 = parse_one(v4_card);
  out = serialize(v4, vcard_version::v3_0);
  EXPECT_NE(out.find("\r\nTEL;TYPE=CELL,VOICE,PREF;VALUE=uri:tel:+1-555-555-0100\r\n"),
            std::string::npos);
  EXPECT_NE(out.find("\r\nPHOTO;ENCODING=b;TYPE=PNG:iVBOR"), std::string::npos);
}

TEST(vcard_serialize, folds_at_75_octets_between_utf8_sequences) {
  vcard_property fn;
  fn.name = "FN";
  fn.values = {std::string(40, 'a')};
  for (int i = 0; i < 30; ++i)
    fn.values[0] += "李"; // three octets each, so some cut would land inside one
  vcard_property note;
  note.name = "NOTE";
  note.values = {std::string(300, 'x')};
  vcard card;
  card.properties = {fn, note};

  std::string out = serialize(card, vcard_version::v4_0);
  strings lines = physical_lines(out);
  bool folded = false;
  for (const std::string& line : lines) {
    EXPECT_LE(line.size(), 75u) << line;
    folded = folded || line[0] == ' ';
    if (line[0] == ' ') { // a continuation never starts inside a character
      EXPECT_NE(static_cast<unsigned char>(line[1]) & 0xC0, 0x80) << line;
    }
  }
  EXPECT_TRUE(folded);

  vcard back = parse_one(out);
  EXPECT_EQ(prop(back, "FN").value(), fn.values[0]);
  EXPECT_EQ(prop(back, "NOTE").value(), note.values[0]);
}

TEST(vcard_serialize, output_always_reads_back_as_one_card) {
  // Garbage a phone might write: a BEGIN property that is not a card start,
  // quotes and a colon in parameter values.
  vcard card = parse_one("BEGIN:VCARD\nFN:A\nBEGIN: VCARD\n"
                         "TEL;TYPE=\"x:y\";X-NOTE=\"a;b\":1\nEND:VCARD\n");
  for (vcard_version version : {vcard_version::v3_0, vcard_version::v4_0}) {
    std::string out = serialize(card, version);
    EXPECT_EQ(out.find("BEGIN: VCARD"), std::string::npos);
    vcard back = parse_one(out);
    EXPECT_EQ(prop(back, "TEL").types, (strings{"x:y"}));
    EXPECT_EQ(prop(back, "TEL").params[0].value, "a;b");
  }
}

/// Every field of two cards' properties, in order.
void expect_same_card(const vcard& read_again, const vcard& fresh) {
  EXPECT_EQ(read_again.version, fresh.version);
  ASSERT_EQ(read_again.properties.size(), fresh.properties.size());
  for (std::size_t i = 0; i < fresh.properties.size(); ++i) {
    const auto& a = read_again.properties[i];
    const auto& b = fresh.properties[i];
    EXPECT_EQ(a.group, b.group) << b.name;
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.types, b.types) << b.name;
    ASSERT_EQ(a.params.size(), b.params.size()) << b.name;
    for (std::size_t j = 0; j < b.params.size(); ++j) {
      EXPECT_EQ(a.params[j].name, b.params[j].name) << b.name;
      EXPECT_EQ(a.params[j].value, b.params[j].value) << b.name;
    }
    EXPECT_EQ(a.values, b.values) << b.name;
    EXPECT_EQ(a.binary, b.binary) << b.name;
    EXPECT_EQ(a.media_type, b.media_type) << b.name;
  }
}

TEST(vcard_reader, a_block_read_again_holds_only_the_new_card) {
  // The reader reuses a block's properties (vcard_reader::next): nothing of
  // a card read before (a group, a parameter, a photo, more properties, an
  // error) may stay in the next one. Each card read with one block, in
  // every order, against the same card read alone with a fresh block.
  const std::vector<std::string> cards = {
      std::string(android_utf8),
      std::string(ios_card),
      std::string(v4_card),
      "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Plain\r\nTEL:1\r\nEND:VCARD\r\n",
      "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Broken\r\nno colon here\r\nEND:VCARD\r\n",
      "BEGIN:VCARD\r\nFN:Short\r\nEND:VCARD\r\n"};
  std::vector<std::size_t> order(cards.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  int orders = 0;
  do {
    std::string body;
    for (auto i : order)
      body += cards[i];
    vcard_reader reader(body);
    vcard_block block;
    for (auto i : order) {
      ASSERT_TRUE(reader.next(&block));
      vcard_reader alone(cards[i]);
      vcard_block fresh;
      ASSERT_TRUE(alone.next(&fresh));
      EXPECT_EQ(block.error, fresh.error) << cards[i];
      if (fresh.ok())
        expect_same_card(block.card, fresh.card);
    }
    EXPECT_FALSE(reader.next(&block));
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(orders, 720);
}

TEST(vcard_reader, a_stray_begin_or_end_line_is_not_content) {
  // Found by fuzzing: an END whose value was damaged stayed in the card as a
  // property, which serialize() cannot write, so the card served to a phone
  // hashed differently from the one stored.
  vcard card = parse_one("BEGIN:VCARD\nVERSION:4.0\nFN:A\nEND:VCR:mailto:a@example.com\n"
                         "BEGIN:VCALENDAR\nEND:VCARD\n");
  ASSERT_EQ(card.properties.size(), 1u);
  EXPECT_EQ(card.properties[0].name, "FN");
}

TEST(vcard_reader, a_name_that_could_not_be_written_back_is_an_error) {
  // Found by fuzzing: a quote in a parameter name, or a lone CR in a
  // property name, was kept, and the card written from it did not read back.
  for (std::string_view line : {"TEL;\"V=x:1", "A\rB:1", "X NOTE:1", "a.b.FN:1"}) {
    auto blocks =
        parse_vcards("BEGIN:VCARD\nFN:A\n" + std::string(line) + "\nEND:VCARD\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_FALSE(blocks[0].ok()) << line;
    EXPECT_NE(blocks[0].error.find("malformed"), std::string::npos) << blocks[0].error;
  }
  vcard card =
      parse_one("BEGIN:VCARD\nitem1.X-AB_Label;X-SERVICE-TYPE=a:b\nFN:A\nEND:VCARD\n");
  EXPECT_EQ(card.properties[0].group, "item1");
  EXPECT_EQ(card.properties[0].name, "X-AB_LABEL");
}

TEST(vcard_reader, a_media_type_that_could_not_be_written_back_is_an_error) {
  // Found by fuzzing: "image/data:image/jpeg" was taken, written in 3.0 as
  // TYPE="DATA:IMAGE/JPEG" and read back as another media type.
  for (std::string_view line : {"PHOTO:data:image/data:image/jpeg;base64,AAAA",
                                "PHOTO;ENCODING=b;TYPE=\"a b/c\":AAAA"}) {
    auto blocks =
        parse_vcards("BEGIN:VCARD\nFN:A\n" + std::string(line) + "\nEND:VCARD\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(blocks[0].error, "bad media type in PHOTO") << line;
  }
  vcard card =
      parse_one("BEGIN:VCARD\nFN:A\nPHOTO:data:image/svg+xml;base64,AAAA\nEND:VCARD\n");
  EXPECT_EQ(card.properties[1].media_type, "image/svg+xml");
}

TEST(vcard_reader, a_binary_with_types_but_no_media_type_is_an_error) {
  // Found by fuzzing: "data:;base64," with TYPE=CELL was written in 3.0 as
  // ENCODING=b;TYPE=CELL, and read back with "CELL" as its media type.
  auto blocks =
      parse_vcards("BEGIN:VCARD\nFN:A\nTEL;TYPE=CELL:data:;base64,AAAA\nEND:VCARD\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].error, "no media type in TEL, which has a TYPE or a PREF");
  // Without types it reads back as it was: no media type in 3.0 or 4.0.
  vcard card = parse_one("BEGIN:VCARD\nFN:A\nPHOTO:data:;base64,AAAA\nEND:VCARD\n");
  EXPECT_TRUE(card.properties[1].binary);
  EXPECT_EQ(card.properties[1].media_type, "");
  for (auto version : {vcard_version::v3_0, vcard_version::v4_0})
    EXPECT_EQ(canonical_hash(parse_one(serialize(card, version))), canonical_hash(card));
}

TEST(vcard_reader, a_binary_with_a_preference_but_no_media_type_is_an_error) {
  // Found by fuzzing (its long run of 2026-12-02): 4.0's PREF parameter is
  // written in 3.0 as TYPE=PREF, so a binary with a preference and no media
  // type read back with "PREF" as its media type, as with other types.
  auto blocks = parse_vcards(
      "BEGIN:VCARD\nVERSION:4.0\nFN:A\nLOGO;PREF=1:data:;base64,AAAA\nEND:VCARD\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].error, "no media type in LOGO, which has a TYPE or a PREF");
  // With a media type the preference travels as it is.
  vcard card = parse_one("BEGIN:VCARD\nVERSION:4.0\nFN:A\n"
                         "LOGO;PREF=1:data:image/png;base64,AAAA\nEND:VCARD\n");
  for (auto version : {vcard_version::v3_0, vcard_version::v4_0})
    EXPECT_EQ(canonical_hash(parse_one(serialize(card, version))), canonical_hash(card));
}

TEST(vcard_reader, a_base64_binary_with_a_preference_but_no_media_type_is_an_error) {
  // Found by fuzzing (the suite's short run of 2026-12-05): the same as
  // above for a binary in ENCODING=b form with a PREF parameter and no TYPE,
  // which 3.0 wrote back as ENCODING=b;TYPE=PREF and read with "PREF" as its
  // media type.
  auto blocks = parse_vcards("BEGIN:VCARD\nVERSION:2.1\nFN:A\n"
                             "LANG;PREF=1;ENCODING=b:AAAA\nEND:VCARD\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].error, "no media type in LANG, which has a TYPE or a PREF");
  // Its TYPE, where it has one, is its media type, and the card reads back
  // as it was.
  vcard card = parse_one("BEGIN:VCARD\nVERSION:3.0\nFN:A\n"
                         "PHOTO;PREF=1;ENCODING=b;TYPE=JPEG:AAAA\nEND:VCARD\n");
  EXPECT_EQ(card.properties[1].media_type, "image/jpeg");
  for (auto version : {vcard_version::v3_0, vcard_version::v4_0})
    EXPECT_EQ(canonical_hash(parse_one(serialize(card, version))), canonical_hash(card));
}

TEST(vcard_reader, only_a_declared_quoted_printable_joins_lines_ending_in_equals) {
  // Found by fuzzing: a parameter whose value merely said QUOTED-PRINTABLE
  // made a value ending in '=' swallow the next line once written back.
  vcard card =
      parse_one("BEGIN:VCARD\nVERSION:3.0\nFN:A\nNOTE;X-HOW=QUOTED-PRINTABLE:a=\n"
                "TEL:1\nEND:VCARD\n");
  ASSERT_EQ(card.properties.size(), 3u);
  EXPECT_EQ(card.properties[1].value(), "a=");
  vcard qp =
      parse_one("BEGIN:VCARD\nVERSION:2.1\nFN:A\nNOTE;ENCODING=\"quoted-printable\":a=\n"
                "b\nEND:VCARD\n");
  EXPECT_EQ(qp.properties[1].value(), "ab");
}

TEST(vcard_serialize, round_trips_through_both_versions) {
  for (std::string_view source : {android_utf8, ios_card, v4_card}) {
    vcard card = parse_one(source);
    for (vcard_version version : {vcard_version::v3_0, vcard_version::v4_0}) {
      vcard back = parse_one(serialize(card, version));
      ASSERT_EQ(back.properties.size(), card.properties.size());
      for (std::size_t i = 0; i < card.properties.size(); ++i) {
        const vcard_property& a = card.properties[i];
        const vcard_property& b = back.properties[i];
        EXPECT_EQ(a.group, b.group);
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.binary, b.binary);
        EXPECT_EQ(a.media_type, b.media_type);
        EXPECT_EQ(a.values, b.values) << a.name;
      }
    }
  }
}

} // namespace
} // namespace simsync::core
