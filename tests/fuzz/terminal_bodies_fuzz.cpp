// The request bodies and fields of the terminal and admin APIs, through the
// functions the gateway calls on them: an uploaded book (vCard) against the
// gateway's limits, a compressed body inflated within its limit, subscriber
// imports (NDJSON, CSV), registration fields (MSISDN, ICCID, name and ID
// number) and a restore instant. The first byte picks the reader, the rest
// is the body. Whatever the input: no crash, no hang, and a book the gateway
// accepts holds only cards within its limits.

#include "core/identity.hpp"
#include "net/book_upload.hpp"
#include "net/content_coding.hpp"
#include "net/instant.hpp"
#include "net/subscriber_input.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using namespace simsync;

namespace {

void check_book(std::string_view body) {
  net::gateway_limits limits;
  limits.max_cards_per_book = 50;
  limits.max_card_bytes = 4096;
  auto book = net::check_book(body, limits);
  if (book.error)
    return;
  fuzz::require(book.entries.size() <= limits.max_cards_per_book,
                "an accepted book is within the card limit");
  for (const auto& entry : book.entries) {
    fuzz::require(entry.card.size() <= limits.max_card_bytes,
                  "an accepted card is within the size limit");
    fuzz::require(!entry.uid.empty(), "an accepted card has a uid");
  }
}

void inflate(std::string_view coding, std::string_view body) {
  constexpr std::size_t limit = 1 << 16;
  auto decoded = net::decode_content(coding, body, limit);
  if (!decoded.error && decoded.decoded)
    fuzz::require(decoded.bytes.size() <= limit, "an inflated body is within its limit");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  auto body = fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 8) {
  case 0:
    check_book(body);
    break;
  case 1:
    inflate("gzip", body);
    break;
  case 2:
    inflate("deflate", body);
    break;
  case 3:
    net::parse_subscriber_ndjson(body);
    break;
  case 4:
    net::parse_subscriber_csv(body);
    break;
  case 5: {
    // name and ID number, split at the first NUL
    auto cut = body.find('\0');
    auto name = body.substr(0, cut);
    auto id = cut == std::string_view::npos ? std::string_view{} : body.substr(cut + 1);
    core::normalize_user_info(name, id);
    core::validate_id_number(id);
    break;
  }
  case 6:
    core::validate_msisdn(body);
    core::validate_iccid(body);
    break;
  case 7:
    if (auto ms = net::unix_ms_of(body))
      fuzz::require(net::unix_ms_of(net::rfc3339_of(*ms)) == ms,
                    "an instant read back from its own rendering is the same");
    break;
  }
  return 0;
}
