#pragma once

// The store operations that are one script call each, as what they send and
// how they read the reply, so that the blocking store (account_store, in a
// shard) and the gateway's asynchronous connection (async_redis) run the
// same code: run_call on either.
//
// A call holds the strings its arguments view (sealed cards, numbers as
// text), so it neither moves nor copies; the asynchronous run_call keeps it
// on the heap until its reply is read.

#include "store/account_store.hpp"
#include "store/async_redis.hpp"
#include "store/scripts.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace simsync::store {

/// ec::store_corrupt with `what` as its context.
caf::error corrupt(const std::string& what);
/// The first `n` elements of an array reply as counts; false if it is not one.
bool read_counts(reply_view v, std::size_t n, std::uint64_t* out);
std::string_view scope_name(scope s);
/// A hybrid logical clock value for a wall-clock instant (no logical part).
std::string hlc_of(std::uint64_t now_ms);
/// A stored record with its card opened, its origin's number named as
/// `names` (the account's table of origins) name it; store_corrupt saying
/// why (`what` names it) when it does not open.
caf::expected<core::stamped_card>
open_card(const core::keyring& keys, std::string_view stored, std::string_view idcode,
          const std::string& what, const core::origin_names& names);

/// An account's table of origins as HGETALL answers it (number, text, ...).
core::origin_names origin_names_of(reply_view flat);

/// What every call shares: the script's arguments, as views into the
/// strings the call holds, so that a call neither moves nor copies.
class script_call {
public:
  script_call(const script_call&) = delete;
  script_call& operator=(const script_call&) = delete;
  const std::vector<std::string_view>& args() const { return args_; }

protected:
  script_call() = default;
  std::vector<std::string_view> args_;
};

/// Shared or private, delta, snapshot or removal (account_store::upload).
class upload_call : public script_call {
public:
  using result_type = upload_result;
  /// Seals with `keys`, which the call holds until it is destroyed, after
  /// Redis answered it (core::shared_keyring::older_writers_in_use).
  upload_call(const upload_request& req, const std::string& carrier,
              std::shared_ptr<const core::keyring> keys, history_policy history);

  static constexpr script which = script::upload;
  caf::expected<upload_result> read(reply_view v) const;

private:
  std::shared_ptr<const core::keyring> sealed_with_;
  std::string hlc_, confirmed_, mass_min_, mass_percent_, keep_ms_, keep_count_;
  std::string origin_number_; ///< the number the records write the line's origin as
  upload_mode mode_;
  std::vector<std::string> hashes_;
  /// A compare's cards' hashes, in one argument; a scan's page size.
  std::string compared_hashes_, scan_count_;
  std::size_t compared_ = 0; ///< the cards a compare names (its answer has one each)
  std::vector<std::string> records_;
};

/// A line asks what is pending for it (account_store::request_update).
class update_call : public script_call {
public:
  using result_type = pending_counts;
  update_call(const std::string& idcode, const std::string& line,
              std::string_view token_hash);

  static constexpr script which = script::update_request;
  caf::expected<pending_counts> read(reply_view v) const;

private:
  std::string idcode_, line_, token_hash_;
};

/// One page of the pending changes, opened (account_store::fetch_page).
class fetch_call : public script_call {
public:
  using result_type = pending_fetch;
  fetch_call(const pending_request& req, std::shared_ptr<const core::keyring> keys);

  static constexpr script which = script::fetch_pending;
  caf::expected<pending_fetch> read(reply_view v) const;

private:
  pending_request req_;
  std::shared_ptr<const core::keyring> keys_;
  std::string limit_;
};

/// What a fetch delivered is applied or discarded, or a step of that
/// (account_store::ack_step).
class ack_call : public script_call {
public:
  using result_type = ack_progress;
  ack_call(const std::string& idcode, const std::string& line,
           std::string_view token_hash, const std::string& cursor, decision what,
           std::uint32_t step);

  static constexpr script which = script::ack_pending;
  caf::expected<ack_progress> read(reply_view v) const;

private:
  std::string idcode_, line_, token_hash_, cursor_, step_;
};

/// Runs `call` on the blocking connection.
template <class Call>
caf::expected<typename Call::result_type> run_call(redis_client& redis,
                                                   const Call& call) {
  auto r = run_script(redis, Call::which, call.args());
  if (!r)
    return std::move(r.error());
  return call.read(r->view());
}

/// Runs `call` on the asynchronous connection; `done` gets its result.
template <class Call, class Done>
void run_call(async_redis& redis, std::shared_ptr<const Call> call, Done done) {
  const auto& args = call->args();
  run_script(redis, Call::which, args,
             [call = std::move(call),
              done = std::move(done)](caf::expected<reply_view> r) mutable {
               if (!r)
                 return done(
                     caf::expected<typename Call::result_type>{std::move(r.error())});
               done(call->read(*r));
             });
}

} // namespace simsync::store
