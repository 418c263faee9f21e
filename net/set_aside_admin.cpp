#include "net/set_aside_admin.hpp"

#include "net/instant.hpp"
#include "net/kept_stream_admin.hpp"

namespace simsync::net {

void handle_list_set_aside(const exchange_ptr& ex) {
  handle_list_kept<store::aside_entry>(
      ex, atom::set_aside_v, "entries", [](const store::aside_entry& e) {
        return nlohmann::json{{"id", e.id},     {"idcode", e.idcode},
                              {"kind", e.kind}, {"cards", e.cards},
                              {"why", e.why},   {"at", rfc3339_of(e.at_ms)}};
      });
}

void handle_drop_set_aside(const exchange_ptr& ex) {
  handle_drop_kept(ex, atom::drop_aside_v,
                   problem{404, "unknown-set-aside-entry", "No such set-aside entry",
                           "the peer has no set-aside entry with that id"});
}

} // namespace simsync::net
