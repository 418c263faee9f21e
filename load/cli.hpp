#pragma once
// tools/loadtest's command line and run: parses the options, finds the
// deployment, runs the scenarios, prints and writes the report.

namespace simsync::load {

/// The whole tool; returns the exit status: 0 when every scenario verified
/// what it measured, 1 when one did not, 2 on a usage error, 3 when the
/// deployment could not be found or set up.
int run_cli(int argc, char** argv);

} // namespace simsync::load
