#include "core/canonical.hpp"
#include "tests/unit/core/parse_one.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace simsync::core {
namespace {

content_hash hash_of(std::string_view body) {
  return canonical_hash(parse_one(body));
}

// One contact, as three phones export it.

constexpr std::string_view li_android_21 =
    "BEGIN:VCARD\r\n"
    "VERSION:2.1\r\n"
    "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:=E6=9D=8E;=E5=9B=9B;;;\r\n"
    "FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:=E6=9D=8E=E5=9B=9B\r\n"
    "TEL;CELL;PREF:+86 138-0013-8000\r\n"
    "TEL;WORK:010 6552 9988\r\n"
    "EMAIL;INTERNET;HOME:LiSi@Example.com\r\n"
    "item1.X-ABLABEL:school\r\n"
    "item1.TEL:+86 (10) 8888-0000\r\n"
    "PHOTO;ENCODING=BASE64;JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYG\r\n"
    "  BgYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCU=\r\n"
    "\r\n"
    "END:VCARD\r\n";

constexpr std::string_view li_gbk_21 =
    "BEGIN:VCARD\n"
    "VERSION:2.1\n"
    "FN;CHARSET=GBK:\xC0\xEE\xCB\xC4\n"
    "N;CHARSET=GBK;ENCODING=QUOTED-PRINTABLE:=C0=EE;=CB=C4\n"
    "TEL;PREF;CELL:+8613800138000\n"
    "TEL;WORK;VOICE:010-65529988\n"
    "EMAIL;HOME:lisi@example.com\n"
    "item7.TEL:+861088880000\n"
    "item7.X-ABLABEL:school\n"
    "PHOTO;ENCODING=BASE64;TYPE=JPEG:\n"
    " /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYGBgYHBwYIChAKCgkJChQODwwQ\n"
    " FxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCU\n"
    "END:VCARD\n";

constexpr std::string_view li_ios_30 =
    "BEGIN:VCARD\r\n"
    "VERSION:3.0\r\n"
    "PRODID:-//Apple Inc.//iPhone OS 17.2//EN\r\n"
    "REV:2024-01-02T03:04:05Z\r\n"
    "fn:李四\r\n"
    "n:李;四;;;\r\n"
    "email;type=INTERNET;type=HOME:lisi@example.com\r\n"
    "TEL;type=CELL;type=VOICE;type=pref:+86 (138) 0013 8000\r\n"
    "TEL;type=WORK;type=VOICE:010.6552.9988\r\n"
    "item2.tel;type=VOICE:+86 10 8888 0000\r\n"
    "item2.X-ABLabel:school\r\n"
    "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/"
    "2wBDAAYEBQYFBAYGBQYGBgYHBwYI\r\n"
    " ChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCU=\r\n"
    "END:VCARD\r\n";

constexpr std::string_view li_40 =
    "BEGIN:VCARD\n"
    "VERSION:4.0\n"
    "UID:urn:uuid:7d5c1e0a-1111-4c3b-9a55-2b5c0e3f4a10\n"
    "FN:李四\n"
    "N:李;四;;;\n"
    "TEL;VALUE=uri;TYPE=\"cell\";PREF=1:tel:+86-138-0013-8000\n"
    "TEL;VALUE=uri;TYPE=work:tel:010-6552-9988\n"
    "EMAIL;TYPE=home:lisi@example.com\n"
    "g.TEL;VALUE=uri:tel:+86-10-8888-0000\n"
    "g.X-ABLABEL:school\n"
    "PHOTO:data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/"
    "2wBDAAYEBQYFBAYGBQYGBgYHBw\n"
    " YIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCU=\n"
    "END:VCARD\n";

// -- equal meaning, equal hash ------------------------------------------------------

TEST(canonical, android_gbk_ios_and_40_spellings_hash_the_same) {
  content_hash android = hash_of(li_android_21);
  EXPECT_EQ(hash_of(li_gbk_21), android);
  EXPECT_EQ(hash_of(li_ios_30), android);
  EXPECT_EQ(hash_of(li_40), android);
  EXPECT_EQ(canonical_form(parse_one(li_40)), canonical_form(parse_one(li_android_21)));
}

TEST(canonical, number_formatting_is_ignored_but_digits_are_not) {
  std::string_view a = "BEGIN:VCARD\nFN:A\nTEL:+86 (138) 0013-8000\nEND:VCARD\n";
  std::string_view b =
      "BEGIN:VCARD\nFN:A\nTEL;VALUE=uri:tel:+86.138.0013.8000\nEND:VCARD\n";
  std::string_view c = "BEGIN:VCARD\nFN:A\nTEL:+86 (138) 0013-8001\nEND:VCARD\n";
  EXPECT_EQ(hash_of(a), hash_of(b));
  EXPECT_NE(hash_of(a), hash_of(c));
}

TEST(canonical, property_order_case_and_folding_are_ignored) {
  std::string_view a = "BEGIN:VCARD\nVERSION:3.0\nFN:Anna Berg\nTEL;TYPE=HOME:1\n"
                       "NOTE:a long note that is folded\nEND:VCARD\n";
  std::string_view b = "BEGIN:VCARD\nversion:3.0\nnote:a long no\n te that is folded\n"
                       "Tel;type=home:1\nfn:Anna Berg\nEND:VCARD\n";
  EXPECT_EQ(hash_of(a), hash_of(b));
}

TEST(canonical, quoted_printable_and_8bit_hash_the_same) {
  std::string_view qp =
      "BEGIN:VCARD\nVERSION:2.1\n"
      "FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:Jos=C3=A9\nEND:VCARD\n";
  std::string_view raw = "BEGIN:VCARD\nVERSION:3.0\nFN:José\nEND:VCARD\n";
  std::string_view latin1 =
      "BEGIN:VCARD\nVERSION:2.1\nFN;CHARSET=ISO-8859-1:Jos\xE9\nEND:VCARD\n";
  EXPECT_EQ(hash_of(qp), hash_of(raw));
  EXPECT_EQ(hash_of(latin1), hash_of(raw));
}

TEST(canonical, a_letter_of_a_name_is_a_change) {
  std::string_view a = "BEGIN:VCARD\nFN:Anna Berg\nTEL:1\nEND:VCARD\n";
  std::string_view b = "BEGIN:VCARD\nFN:Anna Borg\nTEL:1\nEND:VCARD\n";
  std::string_view c = "BEGIN:VCARD\nFN:anna Berg\nTEL:1\nEND:VCARD\n";
  EXPECT_NE(hash_of(a), hash_of(b));
  EXPECT_NE(hash_of(a), hash_of(c)); // the case of a name is what the user wrote
}

TEST(canonical, version_prodid_rev_and_uid_are_not_content) {
  std::string_view a =
      "BEGIN:VCARD\nVERSION:3.0\nFN:A\nUID:one\nREV:1\nPRODID:x\nEND:VCARD\n";
  std::string_view b =
      "BEGIN:VCARD\nVERSION:4.0\nFN:A\nUID:two\nREV:2\nPRODID:y\nEND:VCARD\n";
  EXPECT_EQ(hash_of(a), hash_of(b));
  EXPECT_EQ(canonical_form(parse_one(a)), "FN:A\n");
}

TEST(canonical, type_spellings_and_defaults) {
  std::string_view v21 =
      "BEGIN:VCARD\nFN:A\nTEL;CELL;PREF:1\nEMAIL;INTERNET:a@b.c\nEND:VCARD\n";
  std::string_view v30 =
      "BEGIN:VCARD\nFN:A\nTEL;TYPE=pref,VOICE;TYPE=cell:1\nEMAIL:A@B.C\nEND:VCARD\n";
  std::string_view v40 = "BEGIN:VCARD\nFN:A\nTEL;TYPE=\"cell,voice\";PREF=1:1\n"
                         "EMAIL;TYPE=internet:a@b.c\nEND:VCARD\n";
  std::string_view home = "BEGIN:VCARD\nFN:A\nTEL;HOME;PREF:1\nEMAIL:a@b.c\nEND:VCARD\n";
  EXPECT_EQ(hash_of(v21), hash_of(v30));
  EXPECT_EQ(hash_of(v21), hash_of(v40));
  EXPECT_NE(hash_of(v21), hash_of(home));
}

TEST(canonical, base64_wrapping_is_ignored_but_image_bytes_are_not) {
  std::string_view a =
      "BEGIN:VCARD\nVERSION:3.0\nFN:A\n"
      "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYF\n"
      " BAYGBQYG\nEND:VCARD\n";
  std::string_view b = "BEGIN:VCARD\nVERSION:4.0\nFN:A\n"
                       "PHOTO:data:IMAGE/JPEG;base64,/9j/4AAQSkZJRgABAQAAAQ\n"
                       " ABAAD/2wBDAAYEBQYFBAYGBQYG\nEND:VCARD\n";
  std::string_view c =
      "BEGIN:VCARD\nVERSION:3.0\nFN:A\n"
      "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYF\n"
      " BAYGBQYH\nEND:VCARD\n";
  EXPECT_EQ(hash_of(a), hash_of(b));
  EXPECT_NE(hash_of(a), hash_of(c));
}

TEST(canonical, groups_by_members_not_names) {
  std::string_view a = "BEGIN:VCARD\nFN:A\nitem1.TEL:1\nitem1.X-ABLABEL:school\n"
                       "item2.TEL:2\nitem2.X-ABLABEL:gym\nEND:VCARD\n";
  std::string_view renamed = "BEGIN:VCARD\nFN:A\nitem2.TEL:1\nitem2.X-ABLABEL:school\n"
                             "ITEM1.TEL:2\nitem1.X-ABLABEL:gym\nEND:VCARD\n";
  std::string_view swapped = "BEGIN:VCARD\nFN:A\nitem1.TEL:1\nitem1.X-ABLABEL:gym\n"
                             "item2.TEL:2\nitem2.X-ABLABEL:school\nEND:VCARD\n";
  EXPECT_EQ(hash_of(a), hash_of(renamed));
  EXPECT_NE(hash_of(a), hash_of(swapped));
}

TEST(canonical, empty_components_and_properties_are_dropped) {
  std::string_view a = "BEGIN:VCARD\nN:Berg;Anna;;;\nNOTE:\nEMAIL: \nTEL:5\nEND:VCARD\n";
  std::string_view b = "BEGIN:VCARD\nN: Berg ;Anna\nTEL:5\nEND:VCARD\n";
  EXPECT_EQ(hash_of(a), hash_of(b));
  EXPECT_EQ(canonical_form(parse_one(b)), "N:Berg;Anna\nTEL:5\n");
}

TEST(canonical, escaping_keeps_components_apart) {
  // "a;b" as one component is not the two components a and b.
  std::string_view one = "BEGIN:VCARD\nFN:x\nORG:a\\;b\nEND:VCARD\n";
  std::string_view two = "BEGIN:VCARD\nFN:x\nORG:a;b\nEND:VCARD\n";
  EXPECT_NE(hash_of(one), hash_of(two));
}

TEST(canonical, the_form_and_hash_of_stored_cards_never_change) {
  // Every stored record and line base holds the hash of its card's
  // canonical form: a different form or hash for the same card would make
  // every book read as changed at its next upload. Written on 2026-12-05.
  EXPECT_EQ(canonical_form(parse_one(li_ios_30)),
            "EMAIL;TYPE=home:lisi@example.com\n"
            "FN:\xE6\x9D\x8E\xE5\x9B\x9B\n"
            "N:\xE6\x9D\x8E;\xE5\x9B\x9B\n"
            "PHOTO:data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/"
            "2wBDAAYEBQYFBAYGBQYGBgYHBwYI"
            "ChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCU=\n"
            "TEL:+861088880000\x1E\x1FTEL:+861088880000\x1FX-ABLABEL:school\n"
            "TEL;TYPE=cell,pref:+8613800138000\n"
            "TEL;TYPE=work:01065529988\n"
            "X-ABLABEL:school\x1E\x1FTEL:+861088880000\x1FX-ABLABEL:school\n");
  EXPECT_EQ(hash_of(li_ios_30).hex(), "8a750a24ab9b764fedf7d1b629f97ad7");
  std::string_view params = "BEGIN:VCARD\nVERSION:3.0\nFN:O\\;Brien\\, Pat\n"
                            "ADR;TYPE=work;LABEL=\"Dock 4\":;;1 Quay;Cork;;;IE\n"
                            "NOTE:line one\\nline two\nEND:VCARD\n";
  EXPECT_EQ(canonical_form(parse_one(params)),
            "ADR;TYPE=work;LABEL=dock 4:;;1 Quay;Cork;;;IE\n"
            "FN:O\\;Brien, Pat\nNOTE:line one\\nline two\n");
  EXPECT_EQ(hash_of(params).hex(), "2cfd29cfe8a18420868cb48db93c0a78");
}

// -- identity --------------------------------------------------------------------------

TEST(identity, normalize_number) {
  EXPECT_EQ(normalize_number("+86 (138) 0013-8000"), "+8613800138000");
  EXPECT_EQ(normalize_number("tel:+1-555-0100"), "+15550100");
  EXPECT_EQ(normalize_number(" 010.6552.9988 "), "01065529988");
  EXPECT_EQ(normalize_number("+"), "");
  EXPECT_EQ(normalize_number("12+34"), "1234");
}

TEST(identity, explicit_uid) {
  EXPECT_EQ(explicit_uid(parse_one(li_40)),
            "urn:uuid:7d5c1e0a-1111-4c3b-9a55-2b5c0e3f4a10");
  EXPECT_EQ(explicit_uid(parse_one(li_ios_30)), "");
}

TEST(identity, derived_uid_is_stable_across_spellings) {
  std::string uid = derived_uid(parse_one(li_android_21));
  EXPECT_EQ(uid.rfind("simsync-", 0), 0u);
  ASSERT_EQ(uid.size(), 8u + 32u);
  EXPECT_EQ(uid.find_first_not_of("0123456789abcdef", 8), std::string::npos);
  EXPECT_EQ(derived_uid(parse_one(li_gbk_21)), uid);
  EXPECT_EQ(derived_uid(parse_one(li_ios_30)), uid);
}

TEST(identity, derived_uid_depends_on_name_and_numbers_only) {
  std::string_view base = "BEGIN:VCARD\nFN:Anna  Berg\nTEL:+46 70 1\nTEL:2\nEND:VCARD\n";
  std::string_view reordered =
      "BEGIN:VCARD\nTEL:2\nEMAIL:a@b.c\nFN:anna berg\nTEL:+46-70-1\nEND:VCARD\n";
  std::string_view from_n = "BEGIN:VCARD\nN:Anna;Berg;;;\nTEL:2\nTEL:+46701\nEND:VCARD\n";
  std::string_view other_number =
      "BEGIN:VCARD\nFN:Anna Berg\nTEL:+46 70 1\nTEL:3\nEND:VCARD\n";
  std::string_view other_name =
      "BEGIN:VCARD\nFN:Anna Borg\nTEL:+46 70 1\nTEL:2\nEND:VCARD\n";
  std::string uid = derived_uid(parse_one(base));
  EXPECT_EQ(derived_uid(parse_one(reordered)), uid);
  EXPECT_EQ(derived_uid(parse_one(from_n)), uid);
  EXPECT_NE(derived_uid(parse_one(other_number)), uid);
  EXPECT_NE(derived_uid(parse_one(other_name)), uid);
}

TEST(identity, email_only_cards_derive_from_their_addresses) {
  std::string_view a = "BEGIN:VCARD\nEMAIL:a@example.com\nEND:VCARD\n";
  std::string_view b = "BEGIN:VCARD\nEMAIL:b@example.com\nEND:VCARD\n";
  EXPECT_NE(derived_uid(parse_one(a)), derived_uid(parse_one(b)));
}

} // namespace
} // namespace simsync::core
