// The corpus replay: runs a fuzz target's entry point once on every file of
// the folders (or files) it is given, without libFuzzer, so that the seeds
// and every input that once broke a target are checked by every build.

#include "tests/fuzz/fuzz_input.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

void run_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                         bytes.size());
}

} // namespace

int main(int argc, char** argv) {
  std::size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path where(argv[i]);
    if (!fs::exists(where)) {
      std::cerr << "replay: " << where << " does not exist\n";
      return 2;
    }
    std::vector<fs::path> files;
    if (fs::is_directory(where)) {
      for (const auto& e : fs::recursive_directory_iterator(where))
        if (e.is_regular_file())
          files.push_back(e.path());
    } else {
      files.push_back(where);
    }
    for (const auto& file : files) {
      run_file(file);
      ++inputs;
    }
  }
  std::cout << "replay: " << inputs << " inputs, every property held\n";
  return inputs > 0 ? 0 : 1;
}
