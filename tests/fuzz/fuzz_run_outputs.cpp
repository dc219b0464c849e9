// Fuzzes the files of a run's output directory as `schedlab report` and `schedlab check` read
// them: the input is up to three parts, separated by kPartSeparator lines, written as
// summary.json, timeseries.csv and jobs.csv (a missing part: no such file) of a complete output
// set; then build_report over the directory and load_check_input of it.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/regression_check.hpp"
#include "schedlab/report.hpp"

using namespace schedlab;

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* const kNames[] = {"summary.json", "timeseries.csv", "jobs.csv"};
  const auto parts = fuzz::split_parts(fuzz::text_of(data, size), std::size(kNames));
  // A fresh directory per input, so no file of the previous one stays behind.
  const std::string dir = fuzz::scratch_dir() + "/run";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::vector<std::pair<std::string, std::string_view>> files;
  for (std::size_t i = 0; i < parts.size(); ++i) files.emplace_back(kNames[i], parts[i]);
  write_files_atomically(dir, files);
  try {
    (void)build_report({dir});
    (void)load_check_input(dir);
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
