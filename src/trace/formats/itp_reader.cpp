// Microsoft ITP 2021 raw traces (ElasticFlow, ASPLOS'23): one CSV per cluster with
// job_id, submission_time (s since the collection start), duration (s), num_gpu. The
// elasticflow-traces variant adds num_iteration, model_name, deadline, batch_size (ignored).
// Columns, units and skips: docs/traces.md#itp.
#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t { kJobId, kSubmit, kDuration, kGpus };
constexpr trace_kit::ColumnSpec kColumns[] = {
    {"job_id", true}, {"submission_time", true}, {"duration", true}, {"num_gpu", true}};

RawTrace read_itp(const std::string& path, std::string_view text) {
  RawTrace raw = raw_trace(path, "itp", /*absolute_times=*/false);
  Trace& trace = raw.trace;
  // The cluster is the file: cluster01.csv -> tenant "cluster01".
  const StringId tenant = trace.strings.intern(trace_kit::file_stem(path));
  read_csv_rows(
      raw, text, kColumns,
      [&](const trace_kit::RowParser& row, JobSpec& job, trace_kit::SkipCounter& skipped) {
        job.id = std::string(row.text(kJobId));
        if (job.id.empty()) row.fail(kJobId, "a non-empty id");
        job.submit_ms = row.seconds(kSubmit, /*allow_zero=*/true);
        const TimeMs duration_ms = row.seconds(kDuration, /*allow_zero=*/true);
        const std::int64_t gpus = row.integer(kGpus, 0, 1'000'000, "an integer >= 0");
        if (!keep_gpu_run(gpus, duration_ms, "CPU-only (num_gpu 0)", job, skipped)) return false;
        job.tenant = tenant;
        return true;
      });
  return raw;
}

ReaderDef itp_reader() {
  return ReaderDef{
      "itp", "Microsoft ITP 2021 (ElasticFlow): job_id, submission_time, duration, num_gpu",
      [](std::string_view, std::string_view text) {
        const auto header = trace_kit::header_fields(text);
        return trace_kit::header_has(header, {"job_id", "submission_time", "duration", "num_gpu"});
      },
      read_itp, "job_id"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, itp_reader())

}  // namespace schedlab
