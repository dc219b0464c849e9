// Fuzzes reading a trace file as `--trace FILE` does: the file's bytes (decompressed when its
// name ends in .gz), the format detected from its content, then exercise_trace. The first input
// byte picks the file name (bit 0: "trace.csv.gz" or, bit 1, "trace.swf", else "trace.csv");
// the rest is the file's content, so the inflate path meets both gzip streams and garbage.
#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/trace.hpp"

using namespace schedlab;

namespace {

// The file name the first input byte picks.
const char* file_name(std::uint8_t selector) {
  if ((selector & 1) != 0) return "trace.csv.gz";
  if ((selector & 2) != 0) return "trace.swf";
  return "trace.csv";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path =
      fuzz::write_scratch_file(file_name(data[0]), fuzz::text_of(data + 1, size - 1));
  try {
    fuzz::exercise_trace(read_trace(path));
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
