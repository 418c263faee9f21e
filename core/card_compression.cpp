#include "core/card_compression.hpp"

#include "core/bounded_inflate.hpp"

#include <zlib.h>

#include <stdexcept>

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
// the bytes). A 4 kB window reaches the dictionary and any nearby repeat in
// a card; memory level 4 keeps the per-card reset small.
constexpr int window_bits = 12;
constexpr int memory_level = 4;

const Bytef* dictionary_bytes() {
  return reinterpret_cast<const Bytef*>(dictionary.data());
}

/// A deflate stream set up with the dictionary once, and copied for each card:
/// setting the dictionary hashes each of its bytes, which cost more than
/// compressing a card; a copy of this small a stream (a 4 kB window) costs a
/// fraction of that, and compresses to the same bytes.
struct primed_deflater {
  z_stream primed{};
  z_stream work{};
  bool working = false;

  primed_deflater() {
    if (deflateInit2(&primed, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -window_bits,
                     memory_level, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("card compression: deflateInit2 failed");
    if (deflateSetDictionary(&primed, dictionary_bytes(),
                             static_cast<uInt>(dictionary.size())) != Z_OK) {
      deflateEnd(&primed);
      throw std::runtime_error("card compression: cannot set the dictionary");
    }
  }
  ~primed_deflater() {
    if (working)
      deflateEnd(&work);
    deflateEnd(&primed);
  }
  primed_deflater(const primed_deflater&) = delete;
  primed_deflater& operator=(const primed_deflater&) = delete;

  /// A stream ready for one card: the primed one's copy.
  z_stream& fresh() {
    if (working)
      deflateEnd(&work);
    working = deflateCopy(&work, &primed) == Z_OK;
    if (!working)
      throw std::runtime_error("card compression: cannot copy the primed stream");
    return work;
  }
};

primed_deflater& thread_deflater() {
  thread_local primed_deflater d;
  return d;
}

} // namespace

std::string compress_card(std::string_view card) {
  std::string out;
  compress_card_into(out, card);
  return out;
}

void compress_card_into(std::string& out, std::string_view card) {
  z_stream& z = thread_deflater().fresh();
  auto at = out.size();
  out.resize(at + compressed_card_bound(card.size()));
  out[at] = compressed_card_mark;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(card.data()));
  z.avail_in = static_cast<uInt>(card.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data() + at + 1);
  z.avail_out = static_cast<uInt>(out.size() - at - 1);
  // deflateBound's room takes the whole card in one call.
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
    out.resize(at);
    throw std::runtime_error("card compression: deflate did not finish");
  }
  out.resize(out.size() - z.avail_out);
}

std::size_t compressed_card_bound(std::size_t card_bytes) {
  return 1 + deflateBound(&thread_deflater().primed, static_cast<uLong>(card_bytes));
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
