// SenseTime Helios (Hu et al., SC'21) cluster_log.csv: job_id, user, vc, gpu_num, cpu_num,
// node_num, state, submit_time, start_time, end_time (local "YYYY-MM-DD HH:MM:SS", Asia/Shanghai,
// no DST), duration (s), queue (s). Columns, time zone and skips: docs/traces.md#helios.
#include "../readers.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t { kJobId, kUser, kVc, kGpus, kState, kSubmit, kStart, kEnd, kDuration };
constexpr trace_kit::ColumnSpec kColumns[] = {
    {"job_id", true},     {"user", false},    {"vc", true},
    {"gpu_num", true},    {"state", true},    {"submit_time", true},
    {"start_time", true}, {"end_time", true}, {"duration", false}};

RawTrace read_helios(const std::string& path, std::string_view text) {
  return read_helios_family(path, text, "helios", kColumns,
                            {kJobId, kUser, kGpus, kState, kSubmit, kStart, kEnd, kDuration, kVc});
}

ReaderDef helios_reader() {
  return ReaderDef{
      "helios",
      "SenseTime Helios 2020 cluster_log.csv: job_id, user, vc, gpu_num, state, submit/start/"
      "end_time, duration",
      [](std::string_view, std::string_view text) {
        const auto header = trace_kit::header_fields(text);
        return trace_kit::header_has(
            header, {"job_id", "vc", "gpu_num", "state", "submit_time", "start_time", "end_time"});
      },
      read_helios, "job_id"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, helios_reader())

}  // namespace schedlab
