// Fuzzes summary and baseline files (`schedlab check --baseline FILE`, `run --baseline FILE`):
// the input is a summary.json's content, read with load_check_input, then compared with itself
// and both ways with a committed baseline (tests/baselines), with and without tolerances, with
// the setup check both refusing and allowing differences and with --metrics, and the report
// formatted in every --format.
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/regression_check.hpp"

using namespace schedlab;

namespace {

const CheckInput& committed_baseline() {
  static const CheckInput baseline = load_check_input(
      std::string(SCHEDLAB_SOURCE_DIR) + "/tests/baselines/philly-6214e9_32x8-V100_fifo.json");
  return baseline;
}

void compare(const CheckInput& baseline, const CheckInput& current,
             const std::vector<Tolerance>& tolerances) {
  const CheckReport report = compare_results(baseline, current, tolerances);
  (void)format_check_report(report, baseline, current, /*all_rows=*/true);
  (void)format_check_json(report, baseline, current);
  (void)format_check_junit(report, baseline, current);
  (void)format_check_github(report);
}

// As `schedlab check` does by default: refuses another setup (an InputError).
void compare_strictly(const CheckInput& baseline, const CheckInput& current) {
  CheckOptions options;
  options.metrics = {"wait_s"};
  try {
    (void)compare_results(baseline, current, options);
  } catch (const InputError&) {
  }
  (void)setup_differences(baseline.summaries.front().second, current.summaries.front().second);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  (void)committed_baseline();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_scratch_file("summary.json", fuzz::text_of(data, size));
  try {
    const CheckInput input = load_check_input(path);
    compare(input, input, {});
    const std::vector<Tolerance> tolerances = parse_tolerances({"*=5%", "wait_s=1"});
    compare(committed_baseline(), input, {});
    compare(input, committed_baseline(), {});
    compare(committed_baseline(), input, tolerances);
    if (!input.sweep) compare_strictly(committed_baseline(), input);
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
