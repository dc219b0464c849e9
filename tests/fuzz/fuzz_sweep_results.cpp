// Fuzzes sweep results files (results.jsonl, as `schedlab check` and `schedlab report` read
// them): the input is the file's content, read with load_check_input and compared with itself,
// aggregated across seeds (read_sweep_results, aggregate_sweep), and made into a report.
#include <string>

#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/regression_check.hpp"
#include "schedlab/report.hpp"
#include "schedlab/sweep.hpp"

using namespace schedlab;

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_scratch_file("results.jsonl", fuzz::text_of(data, size));
  try {
    const CheckInput input = load_check_input(path);
    const CheckReport report = compare_results(input, input, CheckOptions{});
    (void)format_check_report(report, input, input, /*all_rows=*/true);
    (void)format_check_junit(report, input, input);
    (void)format_check_github(report);
    (void)aggregate_sweep(read_sweep_results(path));
    (void)build_report({path});
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
