// Shanghai AI Lab Acme (Hu et al., NSDI'24) trace_seren.csv / trace_kalos.csv: job_id, user,
// node_num, gpu_num, cpu_num, type, state, submit_time, start_time, end_time (ISO times with a
// UTC offset, e.g. "2023-03-01 00:18:22+08:00"), duration (s), queue (s), gpu_time (GPU-s);
// Kalos adds mem_per_pod_GB, shared_mem_per_pod, fail_time, stop_time (ignored).
// Columns, time zones and skips: docs/traces.md#acme.
#include "../readers.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t { kJobId, kUser, kGpus, kType, kState, kSubmit, kStart, kEnd, kDuration };
constexpr trace_kit::ColumnSpec kColumns[] = {
    {"job_id", true},     {"user", false},    {"gpu_num", true},
    {"type", false},      {"state", true},    {"submit_time", true},
    {"start_time", true}, {"end_time", true}, {"duration", false}};

RawTrace read_acme(const std::string& path, std::string_view text) {
  // Acme has no virtual clusters; the workload type (Pretrain, SFT, Eval, ...) is the tenant.
  return read_helios_family(
      path, text, "acme", kColumns,
      {kJobId, kUser, kGpus, kState, kSubmit, kStart, kEnd, kDuration, kType});
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
