// Fuzzes the cluster model input files: the first input byte picks the reader (bit 0: the
// failure trace of --failure-trace, checked against a cluster of 8 nodes; else the carbon
// intensity series of --carbon, then its emissions over the first day); the rest is the file's
// content.
#include "fuzz_support.hpp"
#include "schedlab/carbon.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"

using namespace schedlab;

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = fuzz::text_of(data + 1, size - 1);
  try {
    if ((data[0] & 1) != 0) {
      parse_failure_trace("failures.csv", text).check_nodes(8);
    } else {
      const CarbonSeries series = parse_carbon_series("carbon.csv", text);
      std::size_t cursor = 0;
      constexpr TimeMs kHourMs = 3'600'000;
      for (TimeMs t = 0; t < 24 * kHourMs; t += kHourMs)
        (void)series.grams(1000.0, t, t + kHourMs, cursor);
    }
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
