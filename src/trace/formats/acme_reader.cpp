// Shanghai AI Lab Acme (Hu et al., NSDI'24) trace_seren.csv / trace_kalos.csv: job_id, user,
// node_num, gpu_num, cpu_num, type, state, submit_time, start_time, end_time (ISO times with a
// UTC offset, e.g. "2023-03-01 00:18:22+08:00"), duration (s), queue (s), gpu_time (GPU-s);
// Kalos adds mem_per_pod_GB, shared_mem_per_pod, fail_time, stop_time (ignored).
// Columns, time zones and skips: docs/traces.md#acme.
#include <fmt/format.h>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t { kJobId, kUser, kGpus, kType, kState, kSubmit, kStart, kEnd, kDuration };
constexpr trace_kit::ColumnSpec kColumns[] = {
    {"job_id", true},     {"user", false},    {"gpu_num", true},
    {"type", false},      {"state", true},    {"submit_time", true},
    {"start_time", true}, {"end_time", true}, {"duration", false}};

RawTrace read_acme(const std::string& path, std::string_view text) {
  RawTrace raw;
  raw.absolute_times = true;
  Trace& trace = raw.trace;
  trace.path = path;
  trace.format = "acme";
  CsvReader csv(text, path);
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields)) throw TraceError(path, 1, "empty file: expected a header row");
  const trace_kit::ColumnIndex columns(path, csv.line(), fields, kColumns);
  trace_kit::RowParser row(path, columns);
  trace_kit::SkipCounter skipped;
  trace.jobs.reserve(trace_kit::count_lines(text) + 1);
  while (csv.next_row(fields)) {
    row.bind(fields, csv.line());
    JobSpec job;
    job.line = static_cast<std::uint32_t>(row.line());
    job.id = std::string(row.text(kJobId));
    if (job.id.empty()) row.fail(kJobId, "a non-empty id");
    const std::int64_t gpus = row.integer(kGpus, 0, 1'000'000, "an integer >= 0");
    job.submit_ms = row.civil_time(kSubmit);
    if (gpus == 0) {
      skipped.add("CPU-only (gpu_num 0)");
      continue;
    }
    if (row.missing(kStart)) {
      skipped.add("never started (no start_time)");
      continue;
    }
    const TimeMs start_ms = row.civil_time(kStart);
    // Run time = end_time - start_time; the duration column only where end_time is missing
    // (Acme's Kalos file counts duration from submit_time, not start_time).
    TimeMs duration_ms = 0;
    if (!row.missing(kEnd)) {
      const TimeMs end_ms = row.civil_time(kEnd);
      if (end_ms < start_ms)
        row.fail(kEnd, fmt::format("a time >= start_time '{}'", row.text(kStart)));
      duration_ms = end_ms - start_ms;
    } else if (!row.missing(kDuration)) {
      duration_ms = row.seconds(kDuration, /*allow_zero=*/true);
    } else {
      skipped.add("no end_time");
      continue;
    }
    if (duration_ms == 0) {
      skipped.add("no run time (duration 0)");
      continue;
    }
    job.gpus = static_cast<std::int32_t>(gpus);
    job.duration_ms = duration_ms;
    if (row.has(kUser)) job.user = trace.strings.intern(row.text(kUser));
    // Acme has no virtual clusters; the workload type (Pretrain, SFT, Eval, ...) is the tenant.
    if (row.has(kType)) job.tenant = trace.strings.intern(row.text(kType));
    job.status = trace.strings.intern(row.text(kState));
    trace.jobs.push_back(std::move(job));
  }
  skipped.move_into(trace);
  return raw;
}

ReaderDef acme_reader() {
  return ReaderDef{"acme",
                   "Shanghai AI Lab Acme 2023 (Seren, Kalos): job_id, user, gpu_num, type, state, "
                   "submit/start/end_time, duration",
                   [](std::string_view, std::string_view text) {
                     const auto header = trace_kit::header_fields(text);
                     return trace_kit::header_has(
                                header, {"job_id", "gpu_num", "type", "state", "submit_time",
                                         "start_time", "end_time"}) &&
                            !trace_kit::header_has(header, {"vc"});
                   },
                   read_acme, "job_id"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, acme_reader())

}  // namespace schedlab
