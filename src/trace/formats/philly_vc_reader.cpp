// Microsoft Philly 2017 split per virtual cluster (the PCS simulator's trace_<vc>.csv files):
// app_id, submit_time (s from the VC trace's start), service (GPU-s), num_jobs (= GPUs),
// sleep_time, model_name (synthetic; ignored). Columns and skips: docs/traces.md#philly-vc.
#include <cmath>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t { kAppId, kSubmit, kService, kGpus };
constexpr trace_kit::ColumnSpec kColumns[] = {
    {"app_id", true}, {"submit_time", true}, {"service", true}, {"num_jobs", true}};

// "trace_6214e9" -> "6214e9"; other names are kept whole.
std::string vc_of(const std::string& path) {
  std::string stem = trace_kit::file_stem(path);
  if (stem.starts_with("trace_")) stem.erase(0, 6);
  return stem;
}

RawTrace read_philly_vc(const std::string& path, std::string_view text) {
  RawTrace raw = raw_trace(path, "philly-vc", /*absolute_times=*/false);
  Trace& trace = raw.trace;
  const StringId tenant = trace.strings.intern(vc_of(path));
  read_csv_rows(
      raw, text, kColumns,
      [&](const trace_kit::RowParser& row, JobSpec& job, trace_kit::SkipCounter& skipped) {
        job.id = std::string(row.text(kAppId));
        if (job.id.empty()) row.fail(kAppId, "a non-empty id");
        job.submit_ms = row.seconds(kSubmit, /*allow_zero=*/true);
        const double service_s = row.number(kService, 0.0, "GPU-seconds in [0, 1e12]");
        if (service_s > 1e12) row.fail(kService, "GPU-seconds in [0, 1e12]");
        const std::int64_t gpus = row.integer(kGpus, 1, 1'000'000, "an integer >= 1");
        // Duration = service / GPUs, rounded once to the millisecond.
        const auto duration_ms =
            static_cast<TimeMs>(std::llround(service_s * 1000.0 / static_cast<double>(gpus)));
        if (duration_ms <= 0) {
          skipped.add("no run time (service 0)");
          return false;
        }
        job.gpus = static_cast<std::int32_t>(gpus);
        job.duration_ms = duration_ms;
        job.tenant = tenant;
        return true;
      });
  return raw;
}

ReaderDef philly_vc_reader() {
  return ReaderDef{
      "philly-vc", "Microsoft Philly 2017 per-VC CSV (PCS): app_id, submit_time, service, num_jobs",
      [](std::string_view, std::string_view text) {
        const auto header = trace_kit::header_fields(text);
        return trace_kit::header_has(header, {"app_id", "submit_time", "service", "num_jobs"});
      },
      read_philly_vc, "app_id"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, philly_vc_reader())

}  // namespace schedlab
