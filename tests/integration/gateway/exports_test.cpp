// The real-world exports of tests/data/ through the terminal HTTP API: each
// book is pushed on a line at one carrier and pulled on the same person's
// line at another, and every card arrives with its meaning intact, in its
// original bytes and rewritten as vCard 3.0 and 4.0.
#include "tests/integration/gateway/gateway_fixture.hpp"

#include "core/book.hpp"
#include "core/vcard.hpp"

#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

using namespace simsync::testing;

namespace {

/// tests/data/, found from this file's own path so no build setting is needed.
std::string read_data(const std::string& name) {
  std::string here = __FILE__; // .../tests/integration/gateway/exports_test.cpp
  auto tests = here.rfind("/integration/gateway/");
  if (tests == std::string::npos)
    throw std::runtime_error("cannot locate tests/data from " + here);
  std::string path = here.substr(0, tests) + "/data/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// What a book means: each card's UID and the hash of its canonical form.
std::map<std::string, simsync::core::content_hash>
meaning_of(const simsync::core::prepared_book& book) {
  std::map<std::string, simsync::core::content_hash> out;
  for (const auto& e : book.entries)
    out.emplace(e.uid, e.hash);
  return out;
}

struct export_file {
  const char* name;
  std::size_t cards;
  int person;                         ///< a distinct person (and lines) per file
  std::vector<std::string> must_read; ///< UTF-8 text every rendering must carry
};

void PrintTo(const export_file& f, std::ostream* os) {
  *os << f.name;
}

struct exports : shared_deployment<exports, ::testing::TestWithParam<export_file>> {
  static std::vector<std::string> carriers() { return {"carrier-a", "carrier-b"}; }
};

/// Registers person `file.person + offset` at both carriers, pushes the file on
/// the line at carrier-a and waits until it is pending on the line at carrier-b.
line push_and_wait(gateway_client& http, const export_file& file, const std::string& body,
                   int offset) {
  int person = file.person + offset;
  auto digits = std::to_string(person);
  auto a = http.register_line("carrier-a", "+8613800139" + digits, person);
  auto b = http.register_line("carrier-b", "+8618600186" + digits, person);
  EXPECT_FALSE(a.token.empty());
  EXPECT_FALSE(b.token.empty());
  auto pushed = http.push(a, body, "shared");
  EXPECT_EQ(pushed.status, 200) << pushed;
  EXPECT_EQ(pushed.json.value("added", 0u), file.cards) << pushed;
  EXPECT_TRUE(pushed.json["rejected"].empty()) << pushed;
  EXPECT_TRUE(eventually([&] { return http.pending_added(b) == long(file.cards); }))
      << http.update(b);
  return b;
}

/// A card's original bytes as a line receives them: a card that had no UID
/// gets `UID:<the one the server gave it>` after its VERSION line (after
/// BEGIN when VERSION does not follow it), in the card's own line breaks.
std::string with_assigned_uid(const simsync::core::book_entry& e) {
  std::string out = e.card;
  if (!e.uid_assigned)
    return out;
  auto at = out.find('\n') + 1;
  if (out.compare(at, 8, "VERSION:") == 0)
    at = out.find('\n', at) + 1;
  std::string brk = at >= 2 && out[at - 2] == '\r' ? "\r\n" : "\n";
  out.insert(at, "UID:" + e.uid + brk);
  return out;
}

/// Fetches the pending cards of `b` for each query, checks that they mean
/// what the original book means, applies them, and uploads each rendering
/// back from `b`: every upload must be a no-op.
void pull_and_push_back(gateway_client& http, const line& b, const export_file& file,
                        const std::string& body,
                        const std::vector<std::string>& queries) {
  auto original = simsync::core::prepare_book(body);
  auto meaning = meaning_of(original);
  std::string cursor;
  std::map<std::string, std::string> renderings; // query -> cards as fetched
  for (const auto& query : queries) {
    SCOPED_TRACE("pending" + query);
    auto fetched = http.pending(b, query);
    ASSERT_EQ(fetched.status, 200) << fetched;
    EXPECT_EQ(fetched.json.value("added", 0u), file.cards) << fetched;
    auto cards = fetched.json.value("cards", "");
    auto pulled = simsync::core::prepare_book(cards);
    for (const auto& r : pulled.rejected)
      ADD_FAILURE() << "pulled card " << r.index << " line " << r.line << ": "
                    << r.reason;
    EXPECT_EQ(meaning_of(pulled), meaning) << cards;
    if (query.empty()) {
      // No version asked: each card's original bytes, as pushed, when they
      // are UTF-8 (with the UID the server gave it when it had none); a card
      // in another charset comes as 3.0 (its meaning is checked above).
      for (const auto& e : original.entries) {
        if (simsync::core::is_valid_utf8(e.card)) {
          auto expected = with_assigned_uid(e);
          EXPECT_NE(cards.find(expected), std::string::npos) << expected;
        } else {
          EXPECT_EQ(cards.find(e.card), std::string::npos) << e.card;
        }
      }
    } else {
      auto version = query.substr(query.size() - 3);
      size_t at = 0, count = 0;
      while ((at = cards.find("VERSION:" + version, at)) != std::string::npos) {
        ++count;
        ++at;
      }
      EXPECT_EQ(count, file.cards) << cards;
      for (const auto& text : file.must_read)
        EXPECT_NE(cards.find(text), std::string::npos) << text << " in\n" << cards;
    }
    cursor = fetched.json.value("cursor", "");
    renderings[query] = cards;
  }
  auto applied = http.ack(b, cursor, "apply");
  ASSERT_EQ(applied.status, 200) << applied;

  // The phone on b now holds the book as pulled; uploading it back changes nothing.
  for (const auto& [query, cards] : renderings) {
    SCOPED_TRACE("re-push of pending" + query);
    auto again = http.push(b, cards, "shared");
    ASSERT_EQ(again.status, 200) << again;
    EXPECT_EQ(again.json.value("unchanged", 0u), file.cards) << again;
    EXPECT_EQ(again.json.value("added", -1), 0) << again;
    EXPECT_EQ(again.json.value("changed", -1), 0) << again;
    EXPECT_EQ(again.json.value("removed", -1), 0) << again;
    EXPECT_TRUE(again.json["rejected"].empty()) << again;
  }
  // The shared store at b holds the book's meaning.
  auto held = http.contacts(b);
  ASSERT_EQ(held.status, 200) << held;
  EXPECT_EQ(meaning_of(simsync::core::prepare_book(held.body)), meaning) << held.body;
}

} // namespace

TEST_P(exports, pulled_as_vcard_3_0_and_4_0_on_another_carrier_with_meaning_intact) {
  const auto& file = GetParam();
  auto body = read_data(file.name);
  auto original = simsync::core::prepare_book(body);
  ASSERT_TRUE(original.rejected.empty());
  ASSERT_EQ(original.entries.size(), file.cards);
  auto b = push_and_wait(http, file, body, 0);
  pull_and_push_back(http, b, file, body, {"?version=3.0", "?version=4.0"});
}

TEST_P(exports, pulled_as_original_bytes_on_another_carrier_with_meaning_intact) {
  const auto& file = GetParam();
  auto body = read_data(file.name);
  auto b = push_and_wait(http, file, body, 50);
  pull_and_push_back(http, b, file, body, {""});
}

INSTANTIATE_TEST_SUITE_P(
    tests_data, exports,
    ::testing::Values(
        export_file{"android-2.1-qp-utf8.vcf",
                    5,
                    41,
                    {"张伟", "欧阳娜娜（北京大学计算机科学技术系研究生办公室）",
                     "海淀区颐和园路5号", "zhang.wei@example.com"}},
        export_file{"featurephone-2.1-gbk.vcf", 4, 42, {"张伟", "刘德华", "天河路385号"}},
        export_file{"ios-3.0-photo.vcf",
                    3,
                    43,
                    {"华为技术有限公司\\, 北京研究所", "办公室", "7C1A4D3E-2B9F-4E58"}},
        export_file{"v4.0-groups.vcf",
                    5,
                    44,
                    {"家人", "urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1",
                     "urn:uuid:9d6c2f1a-7e4b-4b8e-a3c5-2f1e0d9c8b7a"}}),
    [](const auto& info) {
      std::string out;
      for (char c : std::string(info.param.name))
        out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return out;
    });
