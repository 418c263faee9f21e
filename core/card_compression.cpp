#include "core/card_compression.hpp"

#include "core/bounded_inflate.hpp"

#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace simsync::core {

namespace {

// The preset dictionary of compressed_card_mark: vCard 2.1, 3.0 and 4.0's
// vocabulary (RFC 2426, RFC 6350) and the mail and web words cards hold most.
// Deflate codes a match's distance in fewer bits the nearer it is, so the
// words every card has come last. Stored cards depend on these exact bytes:
// never edit them; a better dictionary takes a new mark.
constexpr std::string_view dictionary =
    "X-ABLabel:X-ANDROID-CUSTOM:X-SOCIALPROFILE;TYPE=CATEGORIES:NICKNAME:"
    "ANNIVERSARY:GENDER:BDAY:LANG:TZ:GEO:KIND:individual;CHARSET=UTF-8;"
    "ENCODING=QUOTED-PRINTABLE:X-PHONETIC-FIRST-NAME:X-PHONETIC-LAST-NAME:"
    "PHOTO;ENCODING=b;TYPE=JPEG:PHOTO;ENCODING=BASE64;JPEG:"
    "PHOTO:data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ"
    "IMPP:xmpp:IMPP:sip:URL;TYPE=WORK:URL;TYPE=HOME:URL:https://www.URL:http://"
    "ADR;TYPE=WORK:;;ADR;TYPE=HOME:;;ADR;TYPE=home:;;ADR:;;"
    "LABEL;TYPE=HOME:ROLE:TITLE:NOTE:ORG:"
    "@hotmail.com\r\n@outlook.com\r\n@yahoo.com\r\n@icloud.com\r\n@163.com\r\n"
    "@qq.com\r\n@gmail.com\r\n"
    "EMAIL;TYPE=WORK:EMAIL;TYPE=HOME:EMAIL;TYPE=work:EMAIL;TYPE=home:"
    "EMAIL;TYPE=INTERNET:EMAIL;TYPE=INTERNET;TYPE=PREF:EMAIL:"
    "TEL;TYPE=FAX:TEL;TYPE=WORK:TEL;TYPE=HOME:TEL;TYPE=VOICE:TEL;TYPE=work:"
    "TEL;TYPE=home:TEL;TYPE=cell:TEL;VALUE=uri;TYPE=cell:tel:+TEL;CELL:"
    "TEL;TYPE=CELL:+TEL:+\r\nEND:VCARD\r\n"
    "BEGIN:VCARD\r\nVERSION:2.1\r\nBEGIN:VCARD\r\nVERSION:4.0\r\n"
    "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:UID:urn:uuid:\r\nUID:\r\nN:;;;;\r\n"
    "FN:\r\nN:";

// Raw deflate (no zlib header or checksum: the seal around it authenticates
// the bytes), written by ISA-L's igzip and read by zlib's inflate: both speak
// deflate against the same dictionary, so a card is one stored form whichever
// wrote it (cards zlib's deflate wrote until 2026-12-05 read as before).
// zlib's deflate built Huffman codes for every card, which was most of a
// small card's 3-4 µs whatever its level or settings; deflate's fixed codes
// need none (about 0.4 µs a card, bench/core_seal_bench) and cost a
// 150-300-byte card 3-6% more bytes. A larger card is worth its own codes
// (fixed codes take 15% more at 600 bytes), which igzip's level 1 builds in
// about half zlib's time for the same size. Matches reach back at most 4 kB:
// the dictionary and any nearby repeat in a card.
constexpr std::size_t largest_card_for_fixed_codes = 384;
constexpr int history_bits = 12;
/// zlib's memory level when it compressed cards: part of their bound.
constexpr int zlib_memory_level = 4;

std::uint8_t* dictionary_bytes() {
  return reinterpret_cast<std::uint8_t*>(const_cast<char*>(dictionary.data()));
}

/// An igzip stream for one kind of card (fixed or built codes) with the
/// dictionary processed once: setting it anew for each card costs more than
/// compressing one.
class card_deflater {
public:
  explicit card_deflater(bool fixed_codes)
      : stream_(std::make_unique<isal_zstream>()), dict_(std::make_unique<isal_dict>()),
        fixed_codes_(fixed_codes) {
    isal_deflate_init(stream_.get());
    stream_->gzip_flag = IGZIP_DEFLATE;
    stream_->hist_bits = history_bits;
    if (!fixed_codes) {
      level_buf_.resize(ISAL_DEF_LVL1_SMALL);
      stream_->level = 1;
      stream_->level_buf = level_buf_.data();
      stream_->level_buf_size = static_cast<std::uint32_t>(level_buf_.size());
    }
    if (isal_deflate_process_dict(stream_.get(), dict_.get(), dictionary_bytes(),
                                  static_cast<std::uint32_t>(dictionary.size())) !=
        COMP_OK)
      throw std::runtime_error("card compression: cannot process the dictionary");
  }

  /// Deflates all of `card` into `out`, at most `room` bytes; the bytes
  /// written, or nullopt if they do not fit.
  std::optional<std::size_t> deflate(std::string_view card, char* out, std::size_t room) {
    isal_zstream& z = *stream_;
    isal_deflate_reset(&z);
    if (fixed_codes_ &&
        isal_deflate_set_hufftables(&z, nullptr, IGZIP_HUFFTABLE_STATIC) != 0)
      throw std::runtime_error("card compression: cannot set the fixed codes");
    if (isal_deflate_reset_dict(&z, dict_.get()) != COMP_OK)
      throw std::runtime_error("card compression: cannot set the dictionary");
    z.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(card.data()));
    z.avail_in = static_cast<std::uint32_t>(card.size());
    z.next_out = reinterpret_cast<std::uint8_t*>(out);
    z.avail_out = static_cast<std::uint32_t>(room);
    z.end_of_stream = 1;
    z.flush = NO_FLUSH;
    if (isal_deflate(&z) != COMP_OK || z.internal_state.state != ZSTATE_END)
      return std::nullopt;
    return room - z.avail_out;
  }

private:
  std::unique_ptr<isal_zstream> stream_;
  std::unique_ptr<isal_dict> dict_;
  std::vector<std::uint8_t> level_buf_;
  bool fixed_codes_;
};

card_deflater& fixed_codes_deflater() {
  thread_local card_deflater d{true};
  return d;
}

card_deflater& built_codes_deflater() {
  thread_local card_deflater d{false};
  return d;
}

} // namespace

std::string compress_card(std::string_view card) {
  std::string out;
  compress_card_into(out, card);
  return out;
}

void compress_card_into(std::string& out, std::string_view card) {
  auto at = out.size();
  auto room = compressed_card_bound(card.size());
  out.resize(at + room);
  out[at] = compressed_card_mark;
  char* body = out.data() + at + 1;
  bool fixed = card.size() <= largest_card_for_fixed_codes;
  auto written = (fixed ? fixed_codes_deflater() : built_codes_deflater())
                     .deflate(card, body, room - 1);
  // Fixed codes take up to 9 bits for a byte deflate cannot match (UTF-8's
  // most of all), and the bound allows only a stored block's few percent:
  // igzip's level 1 stores what it cannot shrink.
  if (!written && fixed)
    written = built_codes_deflater().deflate(card, body, room - 1);
  if (!written) {
    out.resize(at);
    throw std::runtime_error("card compression: deflate did not finish");
  }
  out.resize(at + 1 + *written);
}

std::size_t compressed_card_bound(std::size_t card_bytes) {
  // The bound every release holds a peer's compressed card to: zlib's for
  // the window and memory level cards were first compressed with, which the
  // dictionary does not change.
  struct bound_stream {
    z_stream z{};
    bound_stream() {
      if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -history_bits,
                       zlib_memory_level, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("card compression: deflateInit2 failed");
    }
    ~bound_stream() { deflateEnd(&z); }
  };
  static bound_stream bound;
  return 1 + deflateBound(&bound.z, static_cast<uLong>(card_bytes));
}

std::optional<std::string> expand_card(std::string_view stored, std::size_t max_bytes) {
  std::string out;
  if (!expand_card_into(stored, out, max_bytes))
    return std::nullopt;
  return out;
}

bool expand_card_into(std::string_view stored, std::string& out, std::size_t max_bytes) {
  if (!is_compressed_card(stored)) {
    out.assign(stored);
    return true;
  }
  thread_local inflate_stream stream(deflate_framing::raw);
  return stream.inflate_all(stored.substr(1), out, max_bytes, dictionary).status ==
         inflate_status::complete;
}

} // namespace simsync::core
