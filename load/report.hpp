#pragma once
// The end of a run: a table on stdout, the JSON file (an array, one object
// per scenario), a PNG plot of the interactive step-up (gnuplot), and the
// Redis ceiling that simsync's throughput is compared with.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace simsync::load {

/// The table of the results, one row per scenario.
std::string format_table(const std::vector<nlohmann::json>& results);

/// Writes the results as a JSON array; throws on an I/O error.
void write_json(const std::string& file, const std::vector<nlohmann::json>& results);

/// Plots p50/p99/p99.9 latency against offered rate from the interactive
/// result's steps into `png` (the data beside it as <png>.dat), with the
/// p99 target as a line. Returns an error text, empty on success.
std::string write_plot(const std::string& png, const nlohmann::json& interactive);

/// The Redis ceiling: a throwaway redis-server (no persistence) on a free
/// loopback port, started and stopped by pid, measured with redis-benchmark
/// (HSET, pipelined 16 deep, 50 clients). {"scenario":"redis_ceiling",
/// "hset_per_s":...} or with "error".
nlohmann::json redis_ceiling(std::size_t requests);

/// The gnuplot script of write_plot (pure; tested).
std::string plot_script(const std::string& data, const std::string& png,
                        double target_ms);

/// "HSET: 123456.78 requests per second" lines of redis-benchmark -q; 0 if absent.
double parse_benchmark_rate(const std::string& output, const std::string& test);

} // namespace simsync::load
