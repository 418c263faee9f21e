#include "actors/node_systems.hpp"

#include "actors/actors.hpp"
#include "core/error.hpp"

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <memory>

namespace simsync {

node_system_config::node_system_config(const config::node_config& cfg,
                                       node_system which) {
  add_message_types<caf::id_block::simsync>();
  load<caf::io::middleman>();
  // BASP heartbeats let a node notice a silent peer (down_msg on its handles).
  set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds{1}});
  // One scheduler thread per system, which sleeps until a job comes (CAF
  // wakes a sleeping worker whenever a job is queued for it, and a lone
  // worker is the only one jobs are queued for). Every actor that blocks or
  // takes long is detached (a thread of its own); what runs on the scheduler
  // (the user directory, the shard table's watcher) takes microseconds a
  // job, so a second thread would only wake to steal work there is none of:
  // the cluster system's two each woke every 10 ms (CAF's relaxed sleep) to
  // look, a quarter of an idle node's CPU. CAF 0.17 also polls an idle worker
  // for 25 ms (500 sleeps of 50 µs) before it sleeps, which cost more CPU
  // than the node's own work (perf: a third of carrierd's samples in
  // nanosleep): it sleeps after ten looks instead. Its relaxed sleep is how
  // often it wakes when nothing comes.
  set("scheduler.max-threads", std::int64_t{1});
  set("work-stealing.aggressive-poll-attempts", std::int64_t{10});
  set("work-stealing.moderate-poll-attempts", std::int64_t{0});
  set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::seconds{1}});
  // A message from another node is read where it arrives, on the
  // multiplexer's thread: with BASP workers (CAF 0.17 starts one) each is
  // handed to a scheduler thread to be read, then to its actor, one thread
  // more per message.
  set("middleman.workers", std::int64_t{0});
  const auto* tls = which != node_system::cluster  ? &cfg.federation_tls
                    : cfg.self().cluster.port != 0 ? &cfg.cluster_tls
                                                   : nullptr;
  if (tls) {
    load<caf::openssl::manager>();
    // All three set: CAF requires a certificate from the CA on both sides.
    openssl_cafile = tls->ca_file;
    openssl_certificate = tls->certificate_file;
    openssl_key = tls->certificate_file; // one file holds the chain and the key
  }
}

namespace {

std::string openssl_reason() {
  auto code = ERR_get_error();
  ERR_clear_error();
  if (code == 0)
    return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

} // namespace

caf::error check_tls_identity(const config::tls_identity& tls, const std::string& what) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx{SSL_CTX_new(TLS_method()),
                                                        &SSL_CTX_free};
  auto failed = [&](const std::string& file, const std::string& problem) {
    return caf::make_error(ec::invalid_request, what + " TLS: " + file + ": " + problem +
                                                    " (" + openssl_reason() + ")");
  };
  if (!ctx)
    return failed("-", "cannot create a TLS context");
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), tls.certificate_file.c_str()) != 1)
    return failed(tls.certificate_file, "no certificate chain (PEM) could be read");
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), tls.certificate_file.c_str(),
                                  SSL_FILETYPE_PEM) != 1)
    return failed(tls.certificate_file, "no private key (PEM) could be read");
  if (SSL_CTX_check_private_key(ctx.get()) != 1)
    return failed(tls.certificate_file, "the private key does not match the certificate");
  if (SSL_CTX_load_verify_locations(ctx.get(), tls.ca_file.c_str(), nullptr) != 1)
    return failed(tls.ca_file, "no CA certificate (PEM) could be read");
  return caf::none;
}

} // namespace simsync
