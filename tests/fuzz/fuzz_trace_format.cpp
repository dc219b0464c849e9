// Fuzzes one trace reader, SCHEDLAB_FUZZ_TRACE_FORMAT (a registered format name; CMake builds
// one harness per format): the input is the file's content, read as that format, then
// exercise_trace. For alibaba-pai the input may hold a second part (after a kPartSeparator
// line): the pai_job_table.csv beside the task table, which the reader then reads too.
#include <filesystem>
#include <stdexcept>

#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/trace.hpp"

#ifndef SCHEDLAB_FUZZ_TRACE_FORMAT
#error "SCHEDLAB_FUZZ_TRACE_FORMAT must name the trace format to fuzz"
#endif

namespace {

using namespace schedlab;

const TraceFormat& fuzzed_format() {
  static const TraceFormat format = [] {
    for (const auto& f : trace_formats())
      if (f.name == SCHEDLAB_FUZZ_TRACE_FORMAT) return f;
    throw std::logic_error("no trace format " SCHEDLAB_FUZZ_TRACE_FORMAT);
  }();
  return format;
}

constexpr bool kReadsJobTable = std::string_view(SCHEDLAB_FUZZ_TRACE_FORMAT) == "alibaba-pai";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parts = fuzz::split_parts(fuzz::text_of(data, size), kReadsJobTable ? 2 : 1);
  // The reader looks for the job table beside the file it reads: a file of the scratch
  // directory, present only when the input has the second part.
  const std::string path =
      fuzz::scratch_dir() + (kReadsJobTable ? "/pai_task_table.csv" : "/trace.csv");
  const std::string job_table = fuzz::scratch_dir() + "/pai_job_table.csv";
  if (kReadsJobTable) {
    std::error_code ec;
    std::filesystem::remove(job_table, ec);
    if (parts.size() > 1) fuzz::write_scratch_file("pai_job_table.csv", parts[1]);
  }
  try {
    const Trace trace = fuzzed_format().read(path, parts[0]);
    fuzz::exercise_trace(trace);
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
