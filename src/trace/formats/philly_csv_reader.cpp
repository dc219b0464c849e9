// Microsoft Philly 2017, per-job CSV derived from cluster_job_log (the philly.csv shipped with
// the Pollux and Sia simulators): timestamp (local "YYYY-MM-DD HH:MM:SS", rows not sorted),
// duration (s), num_gpus, gpu_time (GPU-s), cluster (virtual cluster).
// Columns, time zone and skips: docs/traces.md#philly-csv.
#include <cmath>

#include <fmt/format.h>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t { kTimestamp, kDuration, kGpus, kGpuTime, kCluster };
constexpr trace_kit::ColumnSpec kColumns[] = {{"timestamp", true},
                                              {"duration", true},
                                              {"num_gpus", true},
                                              {"gpu_time", false},
                                              {"cluster", false}};

RawTrace read_philly_csv(const std::string& path, std::string_view text) {
  RawTrace raw = raw_trace(path, "philly-csv", /*absolute_times=*/true);
  Trace& trace = raw.trace;
  std::uint64_t row_number = 0;
  read_csv_rows(
      raw, text, kColumns,
      [&](const trace_kit::RowParser& row, JobSpec& job, trace_kit::SkipCounter& skipped) {
        ++row_number;
        // The file has no job id: the id is the data row's number, 1 for the first.
        job.id = std::to_string(row_number);
        job.submit_ms = row.civil_time(kTimestamp);
        const TimeMs duration_ms = row.seconds(kDuration, /*allow_zero=*/true);
        const std::int64_t gpus = row.integer(kGpus, 0, 1'000'000, "an integer >= 0");
        if (row.has(kGpuTime)) {
          // gpu_time is redundant (duration x num_gpus); a mismatch means a damaged row.
          const double gpu_s = row.number(kGpuTime, 0.0, "GPU-seconds >= 0");
          const double expected =
              static_cast<double>(duration_ms) / 1000.0 * static_cast<double>(gpus);
          if (std::fabs(gpu_s - expected) > 0.5 + 1e-9 * expected)
            row.fail(kGpuTime, fmt::format("duration x num_gpus = {}", expected));
        }
        if (!keep_gpu_run(gpus, duration_ms, "CPU-only (num_gpus 0)", job, skipped)) return false;
        if (row.has(kCluster)) job.tenant = trace.strings.intern(row.text(kCluster));
        return true;
      });
  return raw;
}

ReaderDef philly_csv_reader() {
  return ReaderDef{
      "philly-csv",
      "Microsoft Philly 2017 per-job CSV: timestamp, duration, num_gpus, gpu_time, cluster",
      [](std::string_view, std::string_view text) {
        const auto header = trace_kit::header_fields(text);
        return trace_kit::header_has(header, {"timestamp", "duration", "num_gpus"});
      },
      read_philly_csv, "id"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, philly_csv_reader())

}  // namespace schedlab
