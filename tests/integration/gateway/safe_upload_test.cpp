// Nothing a phone sends can lose a contact by accident, through real carrierd
// processes: a body without cards is refused, emptying takes ?empty=true,
// text outside the cards removes nothing, compressed bodies are decoded
// within the body limit, and every card the server named comes back with
// its UID. Also the headers every answer carries (Date, Allow on 405,
// Content-Encoding for a client that accepts gzip).
#include "tests/integration/gateway/gateway_fixture.hpp"
#include "tests/support/zlib_compress.hpp"

#include <regex>

using namespace simsync::testing;

namespace {

struct safe_upload : shared_deployment<safe_upload> {
  static std::vector<std::string> carriers() { return {"carrier-a", "carrier-b"}; }

  /// The line's book as the server holds it (GET .../contacts).
  std::string book_of(const line& l, const std::string& scope = "shared") {
    auto a = http.contacts(l, "?scope=" + scope);
    EXPECT_EQ(a.status, 200) << a;
    return a.body;
  }

  http_answer push_raw(const line& l, const std::string& method, const std::string& query,
                       const std::string& body, httplib::Headers headers = {}) {
    return http.send(l.carrier, method, gateway_client::lines(l) + "/contacts" + query,
                     l.token, body, "text/vcard", std::move(headers));
  }
};

std::string problem_type(const http_answer& a) {
  return a.json.is_object() ? a.json.value("type", "") : "";
}

/// `zero_mib` MiB of zeros as gzip, compressed in steps (never held whole).
std::string gzip_bomb(int zero_mib) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string zeros(1u << 20, '\0');
  std::string chunk(1u << 16, '\0');
  std::string out;
  for (int i = 0; i < zero_mib; ++i) {
    z.next_in = reinterpret_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(zeros.size());
    do {
      z.next_out = reinterpret_cast<Bytef*>(chunk.data());
      z.avail_out = static_cast<uInt>(chunk.size());
      deflate(&z, i + 1 == zero_mib ? Z_FINISH : Z_NO_FLUSH);
      out.append(chunk.data(), chunk.size() - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

std::string gunzip(const std::string& bytes) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 31), Z_OK);
  std::string out;
  std::string chunk(1u << 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - z.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

/// A card without UID: the server derives one.
std::string uidless(const std::string& name, const std::string& tel) {
  return "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:" + name + "\r\nTEL;TYPE=CELL:" + tel +
         "\r\nEND:VCARD\r\n";
}

/// A book of `n` cards, large enough to be worth compressing.
std::string book_of_cards(const std::string& tag, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += card(tag + std::to_string(i), "Contact " + tag + " " + std::to_string(i),
                "+86139" + std::to_string(10000000 + i));
  return out;
}

const std::regex imf_fixdate(
    R"((Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT)");

} // namespace

// -- no accidental wipe -------------------------------------------------------

TEST_F(safe_upload, a_body_without_cards_is_refused_in_both_scopes) {
  auto l = http.register_line("carrier-a", "+8613800150000", 40);
  for (std::string scope : {"shared", "private"}) {
    ASSERT_EQ(http.push(l, card("k1", "Kept " + scope), scope).status, 200);
    for (std::string body : {"hello, this is not a book\r\n", "", "  \r\n\r\n\t"}) {
      for (std::string method : {"PUT", "POST"}) {
        auto a = http.push(l, body, scope, method);
        EXPECT_EQ(a.status, 422) << scope << " " << method << " '" << body << "': " << a;
        EXPECT_TRUE(a.is_problem()) << a;
        EXPECT_EQ(problem_type(a), "urn:simsync:problem:no-cards") << a;
      }
    }
    auto held = book_of(l, scope);
    EXPECT_NE(held.find("Kept " + scope), std::string::npos) << scope << ": " << held;
  }
}

TEST_F(safe_upload, emptying_a_book_takes_empty_true_and_a_blank_body) {
  auto l = http.register_line("carrier-a", "+8613800150100", 41);
  for (std::string scope : {"shared", "private"}) {
    ASSERT_EQ(http.push(l, card("e1", "Empty Me") + card("e2", "Me Too"), scope).status,
              200);
    // empty=true with cards: a contradiction, nothing changes.
    auto contradiction =
        push_raw(l, "PUT", "?scope=" + scope + "&empty=true", card("e3", "Third"));
    EXPECT_EQ(contradiction.status, 400) << contradiction;
    EXPECT_TRUE(contradiction.is_problem()) << contradiction;
    // empty=true on a delta means nothing: refused.
    auto on_delta = push_raw(l, "POST", "?scope=" + scope + "&empty=true", "");
    EXPECT_EQ(on_delta.status, 400) << on_delta;
    auto bad_value = push_raw(l, "PUT", "?scope=" + scope + "&empty=yes", "");
    EXPECT_EQ(bad_value.status, 400) << bad_value;
    EXPECT_EQ(bad_value.json.value("field", ""), "empty") << bad_value;
    auto held = book_of(l, scope);
    EXPECT_NE(held.find("Empty Me"), std::string::npos) << held;
    EXPECT_EQ(held.find("Third"), std::string::npos) << held;

    auto emptied = push_raw(l, "PUT", "?scope=" + scope + "&empty=true", "\r\n");
    ASSERT_EQ(emptied.status, 200) << emptied;
    EXPECT_EQ(emptied.json.value("removed", 0), 2) << emptied;
    EXPECT_TRUE(emptied.json["assigned_uids"].empty()) << emptied;
    EXPECT_EQ(book_of(l, scope).find("BEGIN:VCARD"), std::string::npos);
  }
}

TEST_F(safe_upload, text_outside_the_cards_is_rejected_and_removes_nothing) {
  auto l = http.register_line("carrier-a", "+8613800150200", 42);
  ASSERT_EQ(http.push(l, card("t1", "First") + card("t2", "Second")).status, 200);
  // A snapshot without t2 that has junk between its cards: t3 is added, junk
  // reported where it stands, and t2 is not read as removed.
  auto a = http.push(l, card("t1", "First") + "--boundary--\r\n" + card("t3", "Third"));
  ASSERT_EQ(a.status, 200) << a;
  EXPECT_EQ(a.json.value("added", 0), 1) << a;
  EXPECT_EQ(a.json.value("removed", -1), 0) << a;
  ASSERT_EQ(a.json["rejected"].size(), 1u) << a;
  EXPECT_EQ(a.json["rejected"][0].value("index", 99), 1) << a;
  EXPECT_EQ(a.json["rejected"][0].value("line", 0), 8) << a;
  EXPECT_EQ(a.json["rejected"][0].value("reason", ""), "text outside a card") << a;
  // Junk before the first card: index 0, line 1.
  auto before = http.push(l, "Exported by SomeApp\r\n" + card("t1", "First"));
  ASSERT_EQ(before.status, 200) << before;
  ASSERT_EQ(before.json["rejected"].size(), 1u) << before;
  EXPECT_EQ(before.json["rejected"][0].value("index", 99), 0) << before;
  EXPECT_EQ(before.json["rejected"][0].value("line", 0), 1) << before;
  EXPECT_EQ(before.json.value("removed", -1), 0) << before;
  // Only junk: no card at all.
  auto junk = http.push(l, "END:VCARD\r\nnothing here\r\n");
  EXPECT_EQ(junk.status, 422) << junk;
  EXPECT_EQ(problem_type(junk), "urn:simsync:problem:no-cards") << junk;
  auto held = book_of(l);
  for (auto name : {"First", "Second", "Third"})
    EXPECT_NE(held.find(name), std::string::npos) << name;
}

// -- Content-Encoding ---------------------------------------------------------

TEST_F(safe_upload, gzip_and_deflate_bodies_are_stored_as_the_plain_one) {
  auto plain = http.register_line("carrier-a", "+8613800150300", 43);
  auto zipped = http.register_line("carrier-a", "+8613800150301", 44);
  auto deflated = http.register_line("carrier-a", "+8613800150302", 45);
  auto book = book_of_cards("z", 30) + uidless("No Uid Zip", "+8613922223333");
  auto p = http.push(plain, book);
  ASSERT_EQ(p.status, 200) << p;
  auto g = push_raw(zipped, "PUT", "", zlib_compress(book, 31),
                    {{"Content-Encoding", "gzip"}});
  ASSERT_EQ(g.status, 200) << g;
  auto d = push_raw(deflated, "PUT", "", zlib_compress(book, 15),
                    {{"Content-Encoding", "deflate"}});
  ASSERT_EQ(d.status, 200) << d;
  for (const auto* a : {&g, &d}) {
    EXPECT_EQ(a->json.value("added", 0), 31) << *a;
    EXPECT_EQ(a->json["assigned_uids"], p.json["assigned_uids"]) << *a;
  }
  EXPECT_EQ(book_of(zipped), book_of(plain));
  EXPECT_EQ(book_of(deflated), book_of(plain));

  // A JSON body may be compressed too.
  http.add_subscriber("carrier-a", "+8613800150303", 46);
  nlohmann::json reg{{"msisdn", "+8613800150303"}, {"iccid", "89860012345678901234"}};
  auto r =
      http.send("carrier-a", "POST", "/v1/register", "", zlib_compress(reg.dump(), 31),
                "application/json", {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(r.status, 202) << r;
}

TEST_F(safe_upload, unsupported_or_corrupt_encodings_store_nothing) {
  auto l = http.register_line("carrier-a", "+8613800150400", 47);
  ASSERT_EQ(http.push(l, card("c1", "Before")).status, 200);
  auto gz = zlib_compress(card("c2", "Brotli Card"), 31);
  for (std::string coding : {"br", "gzip, identity", "compress"}) {
    auto a = push_raw(l, "PUT", "", gz, {{"Content-Encoding", coding}});
    EXPECT_EQ(a.status, 415) << coding << ": " << a;
    EXPECT_EQ(problem_type(a), "urn:simsync:problem:unsupported-content-encoding") << a;
  }
  // The coding named twice (two headers) is a list too.
  auto twice = push_raw(l, "PUT", "", zlib_compress(gz, 31),
                        {{"Content-Encoding", "gzip"}, {"Content-Encoding", "gzip"}});
  EXPECT_EQ(twice.status, 415) << twice;
  EXPECT_EQ(problem_type(twice), "urn:simsync:problem:unsupported-content-encoding")
      << twice;
  auto corrupt = gz.substr(0, gz.size() / 2);
  auto c = push_raw(l, "PUT", "", corrupt, {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(c.status, 400) << c;
  EXPECT_EQ(problem_type(c), "urn:simsync:problem:malformed-body") << c;
  auto not_gzip =
      push_raw(l, "PUT", "", card("c3", "Claims Gzip"), {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(not_gzip.status, 400) << not_gzip;
  auto held = book_of(l);
  EXPECT_NE(held.find("Before"), std::string::npos);
  EXPECT_EQ(held.find("Brotli Card"), std::string::npos);
  EXPECT_EQ(held.find("Claims Gzip"), std::string::npos);
}

TEST_F(safe_upload, a_gzip_bomb_is_stopped_at_the_decoded_limit) {
  auto l = http.register_line("carrier-a", "+8613800150500", 48);
  ASSERT_EQ(http.push(l, card("b1", "Survivor")).status, 200);
  // 70 MiB of zeros (the decoded limit is 64 MiB) in about 70 KB, and a
  // card in front so that only the size can refuse it.
  auto bomb = zlib_compress(card("b2", "Bomb Card"), 31) + gzip_bomb(70);
  ASSERT_LT(bomb.size(), 1u << 20);
  auto a = push_raw(l, "PUT", "", bomb, {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(a.status, 413) << a;
  EXPECT_EQ(problem_type(a), "urn:simsync:problem:body-too-large") << a;
  EXPECT_NE(a.json.value("detail", "").find("decodes"), std::string::npos) << a;
  // carrierd is still there, and stored nothing.
  auto held = book_of(l);
  EXPECT_NE(held.find("Survivor"), std::string::npos);
  EXPECT_EQ(held.find("Bomb Card"), std::string::npos);
}

TEST_F(safe_upload, answers_are_gzipped_for_a_client_that_accepts_it) {
  auto l = http.register_line("carrier-a", "+8613800150600", 49);
  ASSERT_EQ(http.push(l, book_of_cards("g", 40)).status, 200);
  auto plain = http.contacts(l);
  ASSERT_EQ(plain.status, 200) << plain;
  ASSERT_GT(plain.body.size(), 1024u);
  EXPECT_EQ(plain.header("Content-Encoding"), "");
  EXPECT_EQ(plain.header("Vary"), "Accept-Encoding");
  auto zipped = http.send(l.carrier, "GET", gateway_client::lines(l) + "/contacts",
                          l.token, "", "", {{"Accept-Encoding", "br;q=1, gzip;q=0.8"}});
  ASSERT_EQ(zipped.status, 200);
  EXPECT_EQ(zipped.header("Content-Encoding"), "gzip");
  EXPECT_EQ(zipped.header("Vary"), "Accept-Encoding");
  EXPECT_LT(zipped.body.size(), plain.body.size());
  EXPECT_EQ(gunzip(zipped.body), plain.body);
  // gzip;q=0 refuses it; a small answer is never compressed.
  auto refused = http.send(l.carrier, "GET", gateway_client::lines(l) + "/contacts",
                           l.token, "", "", {{"Accept-Encoding", "gzip;q=0"}});
  EXPECT_EQ(refused.header("Content-Encoding"), "");
  EXPECT_EQ(refused.body, plain.body);
  auto small = http.send(l.carrier, "POST", gateway_client::lines(l) + "/update", l.token,
                         "", "", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(small.status, 200) << small;
  EXPECT_EQ(small.header("Content-Encoding"), "");
  EXPECT_TRUE(small.json.is_object()) << small;
}

// -- headers every answer carries ---------------------------------------------

TEST_F(safe_upload, a_json_body_beyond_its_limit_is_413_before_it_is_parsed) {
  // An acknowledgement holds a cursor and a decision: 100 KB of JSON is not
  // one, and no token is needed to be refused before the gateway parses it.
  std::string padding(100'000, 'x');
  auto a = http.send("carrier-a", "POST", "/v1/lines/+8613800150600/pending/ack", "",
                     R"({"cursor":")" + padding + R"(","decision":"apply"})",
                     "application/json");
  EXPECT_EQ(a.status, 413) << a;
  EXPECT_EQ(problem_type(a), "urn:simsync:problem:body-too-large") << a;
  // Under the limit, the same route reads the body (and then wants a token).
  auto small = http.send("carrier-a", "POST", "/v1/lines/+8613800150600/pending/ack", "",
                         R"({"cursor":"0","decision":"apply"})", "application/json");
  EXPECT_EQ(small.status, 401) << small;
}

TEST_F(safe_upload, every_answer_has_a_date) {
  auto l = http.register_line("carrier-a", "+8613800150700", 50);
  std::vector<http_answer> answers{
      http.contacts(l),                                                      // 200
      http.send("carrier-a", "GET", gateway_client::lines(l) + "/contacts"), // 401
      http.push(l, "no cards"),                                              // 422
      http.send("carrier-a", "GET", "/v2/nothing"), // 404, no actor
      http.send("carrier-a", "PATCH", gateway_client::lines(l) + "/contacts", l.token, "",
                "text/vcard"), // 405, no actor
  };
  std::vector<int> statuses{200, 401, 422, 404, 405};
  for (std::size_t i = 0; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i].status, statuses[i]) << answers[i];
    EXPECT_TRUE(std::regex_match(answers[i].header("Date"), imf_fixdate))
        << statuses[i] << ": '" << answers[i].header("Date") << "'";
  }
}

TEST_F(safe_upload, a_known_path_with_another_method_is_405_with_allow) {
  auto l = http.register_line("carrier-a", "+8613800150800", 51);
  struct expectation {
    std::string method;
    std::string path;
    std::string allow;
  };
  auto lines = gateway_client::lines(l);
  for (const auto& e :
       std::vector<expectation>{{"PATCH", lines + "/contacts", "GET, PUT, POST"},
                                {"DELETE", lines + "/contacts", "GET, PUT, POST"},
                                {"GET", "/v1/register", "POST"},
                                {"PUT", lines + "/contacts/some-uid", "DELETE"},
                                {"GET", lines + "/update", "POST"},
                                {"POST", lines + "/pending", "GET"},
                                {"GET", lines, "DELETE"},
                                {"OPTIONS", lines + "/pending/ack", "POST"}}) {
    auto a = http.send("carrier-a", e.method, e.path, l.token, "", "text/vcard");
    EXPECT_EQ(a.status, 405) << e.method << " " << e.path << ": " << a;
    EXPECT_TRUE(a.is_problem()) << a;
    EXPECT_EQ(a.header("Allow"), e.allow) << e.method << " " << e.path;
  }
  // Unknown paths stay 404, and nothing answered 405 touched the book.
  auto unknown = http.send("carrier-a", "PATCH", "/v1/lines/" + l.msisdn + "/nothing");
  EXPECT_EQ(unknown.status, 404) << unknown;
  EXPECT_EQ(unknown.header("Allow"), "");
}

// -- UIDs the phone can use ---------------------------------------------------

TEST_F(safe_upload, a_card_pushed_without_uid_can_be_addressed_by_the_uid_assigned) {
  auto a = http.register_line("carrier-a", "+8613800150900", 52);
  auto b = http.register_line("carrier-b", "+8618600150900", 52); // same person
  auto pushed =
      http.push(a, card("own-uid", "Has Own") + uidless("Given Uid", "+8613933334444"));
  ASSERT_EQ(pushed.status, 200) << pushed;
  auto assigned = pushed.json["assigned_uids"];
  ASSERT_TRUE(assigned.is_object()) << pushed;
  ASSERT_EQ(assigned.size(), 1u) << pushed; // own-uid was not assigned
  ASSERT_TRUE(assigned.contains("1")) << pushed;
  auto uid = assigned["1"].get<std::string>();
  EXPECT_FALSE(uid.empty());

  // Read back, the card carries it.
  EXPECT_NE(book_of(a).find("UID:" + uid + "\r\n"), std::string::npos) << book_of(a);
  // The other line receives it with that UID.
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 2; })) << http.update(b);
  auto fetched = http.pending(b);
  ASSERT_EQ(fetched.status, 200) << fetched;
  auto cards = fetched.json.value("cards", "");
  EXPECT_NE(cards.find("UID:" + uid + "\r\n"), std::string::npos) << cards;
  EXPECT_NE(cards.find("UID:own-uid\r\n"), std::string::npos) << cards;
  ASSERT_EQ(http.ack(b, fetched.json.value("cursor", ""), "apply").status, 200);

  // DELETE by that UID removes it, and the other line learns it as removed_uids.
  auto removed = http.send("carrier-a", "DELETE",
                           gateway_client::lines(a) + "/contacts/" + uid, a.token);
  ASSERT_EQ(removed.status, 200) << removed;
  EXPECT_EQ(removed.json.value("removed", 0), 1) << removed;
  EXPECT_TRUE(removed.json["assigned_uids"].is_object()) << removed;
  auto held = book_of(a);
  EXPECT_EQ(held.find("Given Uid"), std::string::npos) << held;
  EXPECT_NE(held.find("Has Own"), std::string::npos) << held;
  ASSERT_TRUE(eventually([&] { return http.update(b).json.value("removed", 0) == 1; }))
      << http.update(b);
  auto gone = http.pending(b);
  ASSERT_EQ(gone.json["removed_uids"].size(), 1u) << gone;
  EXPECT_EQ(gone.json["removed_uids"][0], uid) << gone;
}
