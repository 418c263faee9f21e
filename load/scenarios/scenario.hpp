#pragma once
// What the scenarios share: the options, the run's context, and the checks
// of what a mailbox holds.

#include "load/deployment.hpp"
#include "load/histogram.hpp"
#include "load/http_client.hpp"
#include "load/mailbox_watch.hpp"
#include "load/population.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace simsync::load {

struct options {
  std::string scenario = "all";
  std::size_t persons = 200;              ///< bulk and pull
  std::size_t cards = 500;                ///< bulk: each person's book
  std::size_t interactive_persons = 1000; ///< interactive: persons edited in turn
  std::string rates = "250..8000x2";      ///< interactive step-up, edits/s
  double step_seconds = 5;                ///< interactive: length of each step
  double target_p99_ms = 25;              ///< interactive: the p99 bound searched for
  std::size_t large_cards = 50'000;
  std::size_t delta_edits = 100;
  std::size_t connections = 256;
  int poll_ms = 10; ///< mailbox polling interval when Redis is not used
  bool use_redis = true;
  double timeout_seconds = 120; ///< per wait for propagation
  bool redis_benchmark = true;
  std::size_t redis_benchmark_requests = 1'000'000;
  std::string json_file;
  std::string plot_file;
  unsigned tag = 0; ///< distinguishes this run's msisdns from other runs'
};

struct context {
  const options& opts;
  const deployment& dep;
  http_driver& http;
  mailbox_watch& watch;
  std::size_t next_person = 0; ///< persons are numbered across scenarios
  /// Bulk's persons, their books propagated and still pending (pull reuses them).
  std::vector<person> pending_persons;
  std::size_t pending_cards = 0;

  /// `count` new persons, registered, their siblings known.
  std::vector<person> new_persons(std::size_t count);
};

/// A scenario's JSON object: at least scenario and verified.
using result = nlohmann::json;

result run_bulk(context& ctx);
result run_interactive(context& ctx);
result run_pull(context& ctx);
result run_large(context& ctx);

// -- checks -------------------------------------------------------------------

/// What one line's mailbox must hold.
struct expectation {
  const person* who = nullptr;
  const line* at = nullptr;
  std::size_t added = 0, changed = 0, removed = 0;
  std::set<std::string> uids; ///< the uids of its cards and removals, exactly
};

struct check_result {
  bool ok = true;
  std::size_t lines = 0;             ///< mailboxes checked
  std::size_t entries = 0;           ///< changes found, in all of them
  std::vector<std::string> problems; ///< the first few differences
};

/// GETs every line's pending mailbox through the API and compares counts and
/// uids with the expectation. Untimed.
check_result check_mailboxes(http_driver& http, const std::vector<expectation>& want);

/// The UIDs of the cards of a vCard body (core::vcard_reader), in order.
std::vector<std::string> uids_of(const std::string& body);

/// Compares one GET /pending answer with an expectation; empty when equal.
std::string compare_pending(const nlohmann::json& answer, const expectation& want);

/// Percentiles of a microsecond histogram as milliseconds, into `out`.
void put_latency(nlohmann::json& out, const histogram& h, const std::string& prefix = "");

/// Resident memory (VmRSS) of a process in KiB; 0 if unknown.
std::uint64_t resident_kib(int pid);

/// CPU time (user + system), page faults and thread wake-ups of the
/// deployment's local processes and of this tool, to say which process a
/// change costs most (when pids are known). Page faults (minor: a page
/// touched for the first time since the kernel gave it) and wake-ups (a
/// thread that slept until a message, a reply or a timer came: its
/// voluntary context switches) are counted apart because each costs about
/// 10 µs on the machines of docs/performance.md, a share of the CPU time
/// that it does not name, and their counts do not move with the machine's
/// speed. Wake-ups are those of the threads alive when sampled: a thread
/// that ended in between (a large book's helpers) is not counted.
struct process_usage {
  struct counters {
    double cpu_seconds = 0;
    double page_faults = 0;
    double wakes = 0;
  };
  counters carrierd, redis, loadtest;
  static process_usage sample(const deployment& d);
  /// Sets "cpu_ms_per_change", "page_faults_per_change" and
  /// "thread_wakes_per_change" of `out`, each
  /// {"carrierd":..,"redis-server":..,"loadtest":..} per change since
  /// `before`; sets none when the deployment gave no pids.
  void put_per_change(nlohmann::json& out, const process_usage& before,
                      std::size_t changes) const;
};

} // namespace simsync::load
