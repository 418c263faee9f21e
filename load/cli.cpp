#include "load/cli.hpp"

#include "load/progress.hpp"
#include "load/report.hpp"
#include "load/scenarios/scenario.hpp"
#include "simsync_version.hpp"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>

namespace simsync::load {

namespace {

constexpr const char* usage = R"(usage: loadtest [options]

Drives a running simsync deployment through its HTTP API as many simulated
phones and measures how fast contact changes reach the sibling lines'
pending mailboxes. Every scenario checks what it measured through the API;
a fast wrong answer is reported as verified=false (exit status 1).

Scenarios (--scenario, default all):
  bulk         each person's first line pushes a book (PUT); time until every
               sibling line's mailbox holds it (changes/s)
  interactive  one-card edits (POST delta) at a constant offered rate, open
               loop, stepped up; latency to the sibling mailbox p50/p99/p99.9;
               the highest rate whose p99 is within --target-p99-ms
  pull         every line at once: POST /update, GET /pending, ack (apply)
  large        one 50,000-card book, then a 100-edit delta, each timed, then
               the whole book again unchanged (a re-sync), timed to its answer
  all          bulk, interactive, pull, large; then the Redis ceiling

Setup (never timed): the persons' lines are added as subscribers of their
carriers, one bulk import per carrier (POST /admin/subscribers, NDJSON, with
the carrier's admin key), then each line registers as a phone does: POST
/v1/register, the code read from the carrier's development SMS gateway
([sms] kind = "file": each node's <data_dir>/sms.ndjson, read as it grows),
POST /v1/register/verify. So the tool must see each carrier's admin port,
admin key file and SMS files: `tools/cluster status --json` lists them.

Where the deployment is (default: `tools/cluster status --json`):
  --configs DIR          passed to tools/cluster (--configs DIR)
  --deployment FILE      a file holding that JSON (carriers, gateways, admin,
                         admin_key_file, nodes' redis and sms_file)
  --gateway LIST         carrier-a=http://127.0.0.1:18080,carrier-b=...
  --redis LIST           carrier-a=127.0.0.1:16379,... (with --gateway)
  --redis-user USER      the Redis user for --redis (default operator)
  --redis-password-file FILE  its password (the file's content without its
                         final newline; tools/cluster up makes
                         <password_file>.operator); needed with --redis,
                         since every node's Redis requires a password
  --admin LIST           carrier-a=http://127.0.0.1:19090,... (with --gateway)
  --admin-key LIST       carrier-a=FILE,... the admin key files (with --gateway)
  --sms-file LIST        carrier-a=FILE,... each node's sms.ndjson (with --gateway)
  --no-redis             never touch Redis: poll POST /update instead of
                         keyspace notifications (resolution: --poll-ms)

Sizes:
  --persons N            bulk and pull persons (default 200)
  --cards N              bulk book size (default 500)
  --interactive-persons N  persons edited in turn (default 1000)
  --rates LIST           offered edits/s: 500,1000,2000 or 250..8000x2
                         (default 250..8000x2)
  --step-seconds S       length of each rate step (default 5)
  --target-p99-ms MS     interactive p99 bound (default 25)
  --large-cards N        large book (default 50000)
  --delta-edits N        edits in the large delta (default 100)
  --connections N        HTTP connections (default 256)
  --poll-ms MS           mailbox polling interval without Redis (default 10)
  --timeout-seconds S    longest wait for a propagation (default 120)
  --no-redis-benchmark   skip the Redis ceiling
  --redis-benchmark-requests N  (default 1000000)

Output:
  --json FILE            the results, one object per scenario
  --plot FILE.png        latency percentiles against offered rate (gnuplot)
  --help, -h             this text
  --version              the version
)";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::size_t to_size(const std::string& flag, const std::string& v) {
  try {
    std::size_t used = 0;
    auto n = std::stoull(v, &used);
    if (used != v.size())
      throw std::invalid_argument(v);
    return static_cast<std::size_t>(n);
  } catch (const std::exception&) {
    throw usage_error(flag + ": expected a whole number, got '" + v + "'");
  }
}

double to_double(const std::string& flag, const std::string& v) {
  try {
    std::size_t used = 0;
    auto d = std::stod(v, &used);
    if (used != v.size() || d <= 0)
      throw std::invalid_argument(v);
    return d;
  } catch (const std::exception&) {
    throw usage_error(flag + ": expected a positive number, got '" + v + "'");
  }
}

struct parsed {
  options opts;
  std::string configs, deployment_file, gateways, redis, admin, admin_keys, sms_files;
  std::string redis_user = "operator", redis_password_file;
  bool help = false;
  bool version = false;
};

parsed parse(int argc, char** argv) {
  parsed p;
  auto& o = p.opts;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> std::string {
      if (has_value)
        return value;
      if (i + 1 >= argc)
        throw usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h")
      p.help = true;
    else if (arg == "--version")
      p.version = true;
    else if (arg == "--scenario") {
      o.scenario = next();
      if (o.scenario != "bulk" && o.scenario != "interactive" && o.scenario != "pull" &&
          o.scenario != "large" && o.scenario != "all")
        throw usage_error("--scenario: bulk, interactive, pull, large or all");
    } else if (arg == "--configs")
      p.configs = next();
    else if (arg == "--deployment")
      p.deployment_file = next();
    else if (arg == "--gateway")
      p.gateways = next();
    else if (arg == "--redis")
      p.redis = next();
    else if (arg == "--redis-user")
      p.redis_user = next();
    else if (arg == "--redis-password-file")
      p.redis_password_file = next();
    else if (arg == "--admin")
      p.admin = next();
    else if (arg == "--admin-key")
      p.admin_keys = next();
    else if (arg == "--sms-file")
      p.sms_files = next();
    else if (arg == "--no-redis")
      o.use_redis = false;
    else if (arg == "--persons")
      o.persons = to_size(arg, next());
    else if (arg == "--cards")
      o.cards = to_size(arg, next());
    else if (arg == "--interactive-persons")
      o.interactive_persons = to_size(arg, next());
    else if (arg == "--rates") {
      o.rates = next();
      std::string error;
      if (parse_rates(o.rates, &error).empty())
        throw usage_error(error);
    } else if (arg == "--step-seconds")
      o.step_seconds = to_double(arg, next());
    else if (arg == "--target-p99-ms")
      o.target_p99_ms = to_double(arg, next());
    else if (arg == "--large-cards")
      o.large_cards = to_size(arg, next());
    else if (arg == "--delta-edits")
      o.delta_edits = to_size(arg, next());
    else if (arg == "--connections")
      o.connections = to_size(arg, next());
    else if (arg == "--poll-ms")
      o.poll_ms = static_cast<int>(to_size(arg, next()));
    else if (arg == "--timeout-seconds")
      o.timeout_seconds = to_double(arg, next());
    else if (arg == "--no-redis-benchmark")
      o.redis_benchmark = false;
    else if (arg == "--redis-benchmark-requests")
      o.redis_benchmark_requests = to_size(arg, next());
    else if (arg == "--json")
      o.json_file = next();
    else if (arg == "--plot")
      o.plot_file = next();
    else
      throw usage_error("unknown argument " + arg + " (see --help)");
  }
  if (o.persons == 0 || o.cards == 0 || o.interactive_persons == 0 ||
      o.large_cards == 0 || o.connections == 0 || o.poll_ms == 0)
    throw usage_error("sizes must be at least 1");
  if (o.delta_edits > o.large_cards)
    throw usage_error("--delta-edits cannot exceed --large-cards");
  int sources = !p.deployment_file.empty() + !p.gateways.empty() + !p.configs.empty();
  if (sources > 1)
    throw usage_error("give one of --configs, --deployment, --gateway");
  if ((!p.redis.empty() || !p.admin.empty() || !p.admin_keys.empty() ||
       !p.sms_files.empty()) &&
      p.gateways.empty())
    throw usage_error("--redis, --admin, --admin-key and --sms-file go with --gateway");
  if (!p.redis_password_file.empty() && p.redis.empty())
    throw usage_error("--redis-password-file goes with --redis");
  return p;
}

deployment find_deployment(const parsed& p) {
  deployment d;
  if (!p.deployment_file.empty()) {
    std::ifstream in(p.deployment_file);
    if (!in)
      throw std::runtime_error("cannot read " + p.deployment_file);
    auto json = nlohmann::json::parse(in, nullptr, false);
    if (json.is_discarded())
      throw std::runtime_error(p.deployment_file + " is not JSON");
    d = deployment_from_json(json);
  } else if (!p.gateways.empty()) {
    d = deployment_from_gateways(p.gateways);
    if (!p.redis.empty()) {
      add_redis(d, p.redis);
      set_redis_login(d, {p.redis_user, p.redis_password_file});
    }
    if (!p.admin.empty())
      add_admin(d, p.admin);
    if (!p.admin_keys.empty())
      add_admin_keys(d, p.admin_keys);
    if (!p.sms_files.empty())
      add_sms_files(d, p.sms_files);
  } else {
    d = deployment_from_cluster(p.configs);
  }
  return d;
}

} // namespace

int run_cli(int argc, char** argv) {
  parsed p;
  try {
    p = parse(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "loadtest: " << e.what() << "\n";
    return 2;
  }
  if (p.help) {
    std::cout << usage;
    return 0;
  }
  if (p.version) {
    std::cout << "loadtest (simsync) " << version << "\n";
    return 0;
  }
  auto& o = p.opts;
  install_interrupt_handler();
  std::random_device rd;
  o.tag = rd() % 10000;

  std::vector<nlohmann::json> results;
  try {
    auto d = find_deployment(p);
    std::string where;
    for (const auto& c : d.carriers)
      where += " " + c.id + "=" + c.gateway;
    say("deployment:" + where + (d.has_redis() ? " (redis known)" : " (no redis)"));
    http_driver http(o.connections);
    mailbox_watch watch(d, http, std::chrono::milliseconds{o.poll_ms}, o.use_redis);
    say("mailbox detection: " + watch.method() + "; run tag " + std::to_string(o.tag));
    context ctx{o, d, http, watch, 0, {}, 0};
    auto want = [&](const char* s) { return o.scenario == "all" || o.scenario == s; };
    // Each scenario's failure to run is a result too, not an abort of the others.
    auto run = [&](const char* name, result (*fn)(context&)) {
      try {
        results.push_back(fn(ctx));
      } catch (const interrupted_error&) {
        throw;
      } catch (const std::exception& e) {
        say(std::string(name) + ": failed: " + e.what());
        results.push_back(
            {{"scenario", name}, {"verified", false}, {"problems", {e.what()}}});
      }
      say(std::string(name) + ": done, verified=" +
          (results.back().value("verified", false) ? "true" : "false"));
    };
    if (want("bulk"))
      run("bulk", run_bulk);
    if (want("interactive"))
      run("interactive", run_interactive);
    if (want("pull"))
      run("pull", run_pull);
    if (want("large"))
      run("large", run_large);
  } catch (const interrupted_error&) {
    // The mailbox watch's destructor has restored the Redis settings.
    std::cerr << "loadtest: interrupted\n";
    return 130;
  } catch (const std::exception& e) {
    std::cerr << "loadtest: " << e.what() << "\n";
    return 3;
  }

  if (o.redis_benchmark) {
    auto ceiling = redis_ceiling(o.redis_benchmark_requests);
    double hset = ceiling.value("hset_per_s", 0.0);
    if (hset > 0)
      for (auto& r : results)
        if (r.contains("changes_per_s") && r["changes_per_s"].is_number())
          r["ratio_to_redis"] = r["changes_per_s"].get<double>() / hset;
    results.push_back(ceiling);
  }

  std::cout << "\n" << format_table(results);
  bool all_ok = true;
  for (const auto& r : results) {
    if (!r.value("verified", false)) {
      all_ok = false;
      for (const auto& why : r.value("problems", nlohmann::json::array()))
        std::cout << "  " << r.value("scenario", "?") << ": " << why.get<std::string>()
                  << "\n";
    }
  }
  if (!o.json_file.empty()) {
    write_json(o.json_file, results);
    std::cout << "results: " << o.json_file << "\n";
  }
  if (!o.plot_file.empty())
    for (const auto& r : results)
      if (r.value("scenario", "") == "interactive") {
        auto error = write_plot(o.plot_file, r);
        if (error.empty())
          std::cout << "plot: " << o.plot_file << "\n";
        else
          std::cerr << "loadtest: plot: " << error << "\n";
      }
  return all_ok ? 0 : 1;
}

} // namespace simsync::load
