// Internal: how a trace format reads a file, and what the CSV formats share. Each format is one
// file in src/trace/formats/ that registers its ReaderDef with SCHEDLAB_REGISTER(ReaderDef, ...);
// read_trace looks formats up in Registry<ReaderDef> (sorted by name).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/reader_kit.hpp"
#include "schedlab/registry.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

// What a reader returns before the shared finishing steps (src/trace/trace_formats.cpp):
// times as the file gives them, either relative to the trace start or absolute (epoch ms).
struct RawTrace {
  Trace trace;
  bool absolute_times = false;  // true: submit_ms is epoch ms; rebased so the first submit is 0
};

// The row loop of the CSV trace formats. `raw.trace` holds the file's path and format. Reads the
// header row of `text` (TraceError "empty file: expected a header row" when there is none),
// resolves `columns` against it (ColumnIndex's errors), reserves a job per line, and calls
// `read_row(row, job, skipped)` for every data row, `row` bound to it and `job.line` set:
// read_row fills `job` and returns true to keep it, or counts the row in `skipped` and returns
// false (or throws the row's TraceError). Then the skips are recorded in the trace.
template <typename ReadRow>
void read_csv_rows(RawTrace& raw, std::string_view text,
                   std::span<const trace_kit::ColumnSpec> columns, ReadRow&& read_row) {
  Trace& trace = raw.trace;
  trace_kit::HeaderedCsv csv(trace.path, text, columns);
  trace_kit::SkipCounter skipped;
  trace.jobs.reserve(trace_kit::count_lines(text) + 1);
  while (csv.next()) {
    JobSpec job;
    job.line = static_cast<std::uint32_t>(csv.row().line());
    if (read_row(csv.row(), job, skipped)) trace.jobs.push_back(std::move(job));
  }
  skipped.move_into(trace);
}

// A RawTrace for `path` in `format`, its times absolute (epoch ms) or relative.
RawTrace raw_trace(const std::string& path, const char* format, bool absolute_times);

// The last skips of a GPU job's row, in this order: no GPUs (counted as `cpu_only`, e.g.
// "CPU-only (num_gpu 0)"), then no run time ("no run time (duration 0)"). Otherwise sets the
// job's GPUs and duration and returns true.
bool keep_gpu_run(std::int64_t gpus, TimeMs duration_ms, std::string_view cpu_only, JobSpec& job,
                  trace_kit::SkipCounter& skipped);

// The columns of the Helios family (Helios 2020 and Acme 2023, one schema by the same authors):
// positions in the reader's ColumnSpec list. `tenant` is the column that names the job's tenant
// (Helios: vc; Acme, which has no virtual clusters: the workload type).
struct HeliosFamilyColumns {
  std::size_t job_id, user, gpus, state, submit, start, end, duration, tenant;
};
// A file of the Helios family in `format`, its times absolute: per row the id, GPUs, submit
// time, run time (end_time - start_time, or the duration column where end_time is missing),
// user, tenant and state. Skips: CPU-only (gpu_num 0), never started (no start_time), no
// end_time, no run time (duration 0).
RawTrace read_helios_family(const std::string& path, std::string_view text, const char* format,
                            std::span<const trace_kit::ColumnSpec> columns,
                            const HeliosFamilyColumns& family);

struct ReaderDef {
  std::string name;
  std::string summary;
  // Cheap: looks at the header (first line) or the first bytes only.
  std::function<bool(std::string_view path, std::string_view text)> detect;
  std::function<RawTrace(const std::string& path, std::string_view text)> read_raw;
  // Column named in duplicate-id messages; nullptr if the reader checks ids itself.
  const char* id_column = nullptr;
};

}  // namespace schedlab
