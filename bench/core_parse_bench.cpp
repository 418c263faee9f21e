// Throughput of the vCard path of an upload: parse, canonicalize and hash a
// realistic 10,000-card book (prepare_book), and parse alone for comparison.
// Target: >= 100 MB/s on one core in a Release build.

#include "bench/sample_book.hpp"
#include "core/book.hpp"
#include "core/vcard.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <iconv.h>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace simsync::core;

// -- deterministic book generator ------------------------------------------------

constexpr std::string_view chinese_surnames[] = {
    "王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱"};
constexpr std::string_view chinese_given[] = {
    "伟", "芳", "娜", "秀英", "敏", "静", "丽", "强", "磊",   "军",
    "洋", "勇", "艳", "杰",   "娟", "涛", "明", "超", "秀兰", "霞"};
constexpr std::string_view latin_first[] = {"Anna",  "Lars",  "Maria", "John",   "Sofia",
                                            "Ahmed", "Chloé", "Mateo", "Olivia", "Noah"};
constexpr std::string_view latin_last[] = {"Berg",  "Smith",     "García", "Müller",
                                           "Rossi", "Johansson", "Dubois", "Nowak",
                                           "Silva", "Kim"};

/// Draws with a fixed algorithm (std:: distributions differ between
/// standard libraries), so every machine benchmarks the same book.
class draw {
public:
  explicit draw(std::uint64_t seed) : engine_(seed) {}
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(engine_() % n); }
  bool percent(std::size_t p) { return below(100) < p; }
  template <std::size_t N> std::string_view pick(const std::string_view (&list)[N]) {
    return list[below(N)];
  }

private:
  std::mt19937_64 engine_;
};

std::string to_gbk(std::string_view utf8) {
  iconv_t cd = iconv_open("GBK", "UTF-8");
  std::string out(utf8.size() * 2, '\0');
  char* src = const_cast<char*>(utf8.data());
  std::size_t src_left = utf8.size();
  char* dst = out.data();
  std::size_t dst_left = out.size();
  std::size_t rc = iconv(cd, &src, &src_left, &dst, &dst_left);
  iconv_close(cd);
  if (rc == static_cast<std::size_t>(-1))
    throw std::runtime_error("generator: no GBK form");
  out.resize(out.size() - dst_left);
  return out;
}

std::string quoted_printable(std::string_view bytes) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : bytes) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || c == '=' || c == ';') {
      out += '=';
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string base64_photo(draw& rng, std::size_t text_size) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out = "/9j/4AAQSkZJRgABAQ"; // a JPEG's first bytes
  while (out.size() < text_size)
    out += alphabet[rng.below(64)];
  out.resize(text_size / 4 * 4);
  return out;
}

/// Wraps like the exporters do: `first` octets on the property's line, then
/// continuation lines of `width` octets after `indent`.
std::string wrapped(std::string_view text, std::size_t first, std::size_t width,
                    std::string_view indent, std::string_view eol) {
  std::string out(text.substr(0, first));
  for (std::size_t pos = first; pos < text.size(); pos += width) {
    out += eol;
    out += indent;
    out += text.substr(pos, width);
  }
  return out;
}

std::string phone_number(draw& rng) {
  std::string digits;
  for (int i = 0; i < 8; ++i)
    digits += static_cast<char>('0' + rng.below(10));
  switch (rng.below(3)) {
  case 0:
    return "+86 13" + std::to_string(rng.below(10)) + " " + digits.substr(0, 4) + " " +
           digits.substr(4);
  case 1:
    return "13" + std::to_string(rng.below(10)) + "-" + digits.substr(0, 4) + "-" +
           digits.substr(4);
  default:
    return "(0" + std::to_string(10 + rng.below(90)) + ") " + digits;
  }
}

struct person {
  std::string family, given, full;
  bool chinese = false;
};

person make_person(draw& rng) {
  person p;
  p.chinese = rng.percent(60);
  if (p.chinese) {
    p.family = rng.pick(chinese_surnames);
    p.given = rng.pick(chinese_given);
    p.full = p.family + p.given;
  } else {
    p.family = rng.pick(latin_last);
    p.given = rng.pick(latin_first);
    p.full = p.given + " " + p.family;
  }
  return p;
}

void android_21(draw& rng, const person& p, std::size_t id, std::string* out) {
  const std::string_view eol = "\r\n";
  *out += "BEGIN:VCARD\r\nVERSION:2.1\r\n";
  if (!p.chinese) {
    *out += "N:" + p.family + ";" + p.given + ";;;\r\nFN:" + p.full + "\r\n";
  } else if (rng.percent(25)) {
    *out +=
        "N;CHARSET=GBK;ENCODING=QUOTED-PRINTABLE:" + quoted_printable(to_gbk(p.family)) +
        ";" + quoted_printable(to_gbk(p.given)) + ";;;\r\n";
    *out +=
        "FN;CHARSET=GBK;ENCODING=QUOTED-PRINTABLE:" + quoted_printable(to_gbk(p.full)) +
        "\r\n";
  } else {
    *out += "N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:" + quoted_printable(p.family) +
            ";" + quoted_printable(p.given) + ";;;\r\n";
    *out +=
        "FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:" + quoted_printable(p.full) + "\r\n";
  }
  for (std::size_t n = 1 + rng.below(3), i = 0; i < n; ++i)
    *out +=
        std::string(i == 0 ? "TEL;CELL;PREF:" : "TEL;HOME:") + phone_number(rng) + "\r\n";
  if (rng.percent(60))
    *out += "EMAIL;HOME:user" + std::to_string(id) + "@example.cn\r\n";
  if (rng.percent(20))
    *out += "PHOTO;ENCODING=BASE64;JPEG:" +
            wrapped(base64_photo(rng, 5000 + rng.below(15000)), 50, 76, "  ", eol) +
            "\r\n\r\n";
  *out += "END:VCARD\r\n";
}

void ios_30(draw& rng, const person& p, std::size_t id, std::string* out) {
  *out += "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:-//Apple Inc.//iPhone OS 17.2//EN\r\n";
  *out += "N:" + p.family + ";" + p.given + ";;;\r\nFN:" + p.full + "\r\n";
  if (rng.percent(30))
    *out += "ORG:Example Trading Co.\\, Ltd.;Sales\r\n";
  for (std::size_t n = 1 + rng.below(3), i = 0; i < n; ++i)
    *out += "item" + std::to_string(i + 1) +
            ".TEL;type=CELL;type=VOICE:" + phone_number(rng) + "\r\nitem" +
            std::to_string(i + 1) + ".X-ABLabel:_$!<Mobile>!$_\r\n";
  if (rng.percent(60))
    *out += "EMAIL;type=INTERNET;type=WORK;type=pref:user" + std::to_string(id) +
            "@example.com\r\n";
  if (rng.percent(20))
    *out += "PHOTO;ENCODING=b;TYPE=JPEG:" +
            wrapped(base64_photo(rng, 5000 + rng.below(15000)), 48, 74, " ", "\r\n") +
            "\r\n";
  *out += "END:VCARD\r\n";
}

void v40(draw& rng, const person& p, std::size_t id, std::string* out) {
  *out += "BEGIN:VCARD\nVERSION:4.0\n";
  if (rng.percent(50))
    *out += "UID:urn:uuid:00000000-0000-4000-8000-" + std::to_string(100000000000 + id) +
            "\n";
  *out += "FN:" + p.full + "\nN:" + p.family + ";" + p.given + ";;;\n";
  for (std::size_t n = 1 + rng.below(3), i = 0; i < n; ++i)
    *out += "TEL;VALUE=uri;TYPE=\"cell,voice\":tel:" + phone_number(rng) + "\n";
  if (rng.percent(60))
    *out += "work.EMAIL;TYPE=work:user" + std::to_string(id) +
            "@example.org\nwork.ORG:ACME\n";
  if (rng.percent(20))
    *out += "PHOTO:data:image/jpeg;base64," +
            wrapped(base64_photo(rng, 5000 + rng.below(15000)), 40, 74, " ", "\n") + "\n";
  *out += "END:VCARD\n";
}

/// 10,000 cards: 40% Android 2.1 (QP, UTF-8 or GBK), 35% iOS 3.0, 25% 4.0;
/// 60% Chinese names; 1-3 numbers; 60% with e-mail; 20% with a photo of
/// 5-20 KB of base64.
const std::string& sample_book() {
  static const std::string book = [] {
    draw rng(20240501);
    std::string body;
    for (std::size_t id = 0; id < 10000; ++id) {
      person p = make_person(rng);
      std::size_t kind = rng.below(100);
      if (kind < 40)
        android_21(rng, p, id, &body);
      else if (kind < 75)
        ios_30(rng, p, id, &body);
      else
        v40(rng, p, id, &body);
    }
    return body;
  }();
  return book;
}

// -- benchmarks --------------------------------------------------------------------

void prepare_book_10k(benchmark::State& state) {
  const std::string& body = sample_book();
  prepared_book check = prepare_book(body);
  if (!check.rejected.empty() || check.entries.size() != 10000) {
    state.SkipWithError("the generated book does not prepare cleanly");
    return;
  }
  for (auto _ : state) {
    prepared_book book = prepare_book(body);
    benchmark::DoNotOptimize(book.entries.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  state.counters["book_MB"] = static_cast<double>(body.size()) / 1e6;
}
BENCHMARK(prepare_book_10k)->Unit(benchmark::kMillisecond);

/// A large book of small plain cards, as the load tool's large scenario
/// sends (50,000 cards of about 200 bytes): where the per-card work of
/// reading, numbering and copying counts, not the bytes. Process CPU time,
/// so the helper threads' share counts too.
void prepare_book_50k_plain(benchmark::State& state) {
  static const std::string body = [] {
    std::string out;
    for (const auto& entry : simsync::bench::sample_book(50000))
      out += entry.card;
    return out;
  }();
  for (auto _ : state) {
    prepared_book book = prepare_book(body);
    benchmark::DoNotOptimize(book.entries.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 50000));
}
BENCHMARK(prepare_book_50k_plain)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

void parse_only_10k(benchmark::State& state) {
  const std::string& body = sample_book();
  for (auto _ : state) {
    vcard_reader reader(body);
    vcard_block block;
    std::size_t cards = 0;
    while (reader.next(&block))
      cards += block.ok();
    benchmark::DoNotOptimize(cards);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
BENCHMARK(parse_only_10k)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
