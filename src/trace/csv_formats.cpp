// What the CSV trace formats share beyond the reader kit: their RawTrace, the last skips of a
// GPU job, and the Helios family's reader (readers.hpp).
#include <fmt/format.h>

#include "readers.hpp"

namespace schedlab {

RawTrace raw_trace(const std::string& path, const char* format, bool absolute_times) {
  RawTrace raw;
  raw.absolute_times = absolute_times;
  raw.trace.path = path;
  raw.trace.format = format;
  return raw;
}

namespace {

bool read_helios_family_row(const trace_kit::RowParser& row, const HeliosFamilyColumns& c,
                            Trace& trace, JobSpec& job, trace_kit::SkipCounter& skipped) {
  job.id = std::string(row.text(c.job_id));
  if (job.id.empty()) row.fail(c.job_id, "a non-empty id");
  const std::int64_t gpus = row.integer(c.gpus, 0, 1'000'000, "an integer >= 0");
  job.submit_ms = row.civil_time(c.submit);
  if (gpus == 0) {
    skipped.add("CPU-only (gpu_num 0)");
    return false;
  }
  if (row.missing(c.start)) {
    skipped.add("never started (no start_time)");
    return false;
  }
  const TimeMs start_ms = row.civil_time(c.start);
  // Run time = end_time - start_time; the duration column only where end_time is missing
  // (Acme's Kalos file counts duration from submit_time, not start_time).
  TimeMs duration_ms = 0;
  if (!row.missing(c.end)) {
    const TimeMs end_ms = row.civil_time(c.end);
    if (end_ms < start_ms)
      row.fail(c.end, fmt::format("a time >= start_time '{}'", row.text(c.start)));
    duration_ms = end_ms - start_ms;
  } else if (!row.missing(c.duration)) {
    duration_ms = row.seconds(c.duration, /*allow_zero=*/true);
  } else {
    skipped.add("no end_time");
    return false;
  }
  if (!keep_gpu_run(gpus, duration_ms, "CPU-only (gpu_num 0)", job, skipped)) return false;
  if (row.has(c.user)) job.user = trace.strings.intern(row.text(c.user));
  if (row.has(c.tenant)) job.tenant = trace.strings.intern(row.text(c.tenant));
  job.status = trace.strings.intern(row.text(c.state));
  return true;
}

}  // namespace

bool keep_gpu_run(std::int64_t gpus, TimeMs duration_ms, std::string_view cpu_only, JobSpec& job,
                  trace_kit::SkipCounter& skipped) {
  if (gpus == 0) {
    skipped.add(cpu_only);
    return false;
  }
  if (duration_ms == 0) {
    skipped.add("no run time (duration 0)");
    return false;
  }
  job.gpus = static_cast<std::int32_t>(gpus);
  job.duration_ms = duration_ms;
  return true;
}

RawTrace read_helios_family(const std::string& path, std::string_view text, const char* format,
                            std::span<const trace_kit::ColumnSpec> columns,
                            const HeliosFamilyColumns& family) {
  RawTrace raw = raw_trace(path, format, /*absolute_times=*/true);
  read_csv_rows(
      raw, text, columns,
      [&](const trace_kit::RowParser& row, JobSpec& job, trace_kit::SkipCounter& skipped) {
        return read_helios_family_row(row, family, raw.trace, job, skipped);
      });
  return raw;
}

}  // namespace schedlab
