// tools/loadtest: simulated phones against a running deployment (load/cli.hpp).
#include "load/cli.hpp"

int main(int argc, char** argv) {
  return simsync::load::run_cli(argc, argv);
}
