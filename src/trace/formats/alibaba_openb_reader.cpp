// Alibaba cluster-trace-gpu-v2023 "openb" pod list (Weng et al., ATC'23): name, cpu_milli,
// memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time,
// scheduled_time (all times in s from the trace start). Columns, mapping and skips:
// docs/traces.md#alibaba-openb.
#include <spdlog/spdlog.h>

#include "../readers.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/reader_kit.hpp"

namespace schedlab {
namespace {

enum Column : std::size_t {
  kName,
  kNumGpu,
  kGpuMilli,
  kGpuSpec,
  kQos,
  kPhase,
  kCreation,
  kDeletion,
  kScheduled,
  kCpuMilli,
  kMemoryMib
};
constexpr trace_kit::ColumnSpec kColumns[] = {
    {"name", true},          {"num_gpu", true},       {"gpu_milli", false},
    {"gpu_spec", false},     {"qos", false},          {"pod_phase", true},
    {"creation_time", true}, {"deletion_time", true}, {"scheduled_time", true},
    {"cpu_milli", false},    {"memory_mib", false}};

// QoS class -> priority: latency-sensitive and guaranteed pods above burstable above best-effort.
std::int64_t qos_priority(std::string_view qos) {
  if (qos == "LS" || qos == "Guaranteed") return 2;
  if (qos == "Burstable") return 1;
  return 0;
}

RawTrace read_openb(const std::string& path, std::string_view text) {
  RawTrace raw = raw_trace(path, "alibaba-openb", /*absolute_times=*/false);
  Trace& trace = raw.trace;
  std::uint64_t shared_gpu = 0;
  std::uint64_t multi_model = 0;
  trace_kit::GpuTypeSets type_sets;
  read_csv_rows(
      raw, text, kColumns,
      [&](const trace_kit::RowParser& row, JobSpec& job, trace_kit::SkipCounter& skipped) {
        job.id = std::string(row.text(kName));
        if (job.id.empty()) row.fail(kName, "a non-empty pod name");
        const std::int64_t gpus = row.integer(kNumGpu, 0, 64, "an integer in 0..64");
        std::int64_t gpu_milli = 1000;
        if (!row.missing(kGpuMilli))
          gpu_milli = row.integer(kGpuMilli, 0, 1000, "an integer in 0..1000");
        job.submit_ms = row.seconds(kCreation, /*allow_zero=*/true);
        const TimeMs deletion_ms = row.seconds(kDeletion, /*allow_zero=*/true);
        const bool scheduled = !row.missing(kScheduled);
        const TimeMs scheduled_ms = scheduled ? row.seconds(kScheduled, /*allow_zero=*/true) : 0;
        if (gpus == 0) {
          skipped.add("CPU-only (num_gpu 0)");
          return false;
        }
        if (!scheduled) {
          skipped.add("never scheduled (no scheduled_time)");
          return false;
        }
        if (deletion_ms <= scheduled_ms) {
          skipped.add("no run time (deletion_time <= scheduled_time)");
          return false;
        }
        // The real requests; a run shares GPUs and counts CPU and memory only with --gpu-sharing
        // on, otherwise a fraction of a GPU holds a whole one (docs/gpu-sharing.md).
        job.gpus = static_cast<std::int32_t>(gpus);
        if (gpu_milli > 0 && gpu_milli < 1000) {
          ++shared_gpu;
          if (gpus != 1) row.fail(kGpuMilli, "1000 for a pod of more than one GPU");
          job.gpu_milli = static_cast<std::int32_t>(gpu_milli);
        }
        if (!row.missing(kCpuMilli))
          job.cpu_milli =
              row.integer(kCpuMilli, 0, kMaxTraceCpuMilli, "an integer in 0..1000000000");
        if (!row.missing(kMemoryMib))
          job.memory_mib =
              row.integer(kMemoryMib, 0, kMaxTraceMemoryMib, "an integer in 0..1073741824");
        job.duration_ms = deletion_ms - scheduled_ms;
        job.status = trace.strings.intern(row.text(kPhase));
        if (row.has(kQos)) {
          job.tenant = trace.strings.intern(row.text(kQos));
          job.priority = qos_priority(row.text(kQos));
        }
        if (!row.missing(kGpuSpec)) {
          const std::string_view spec = row.text(kGpuSpec);
          // One model is a constraint; "A|B" is the set of models the pod accepts.
          if (spec.find('|') == std::string_view::npos) {
            job.gpu_type = trace.strings.intern(spec);
          } else {
            ++multi_model;
            if (!type_sets.assign(spec, trace, job))
              row.fail(kGpuSpec, "GPU models separated by '|'");
          }
        }
        return true;
      });
  if (shared_gpu > 0)
    spdlog::info(
        "{}: {} pods request a fraction of a GPU (gpu_milli < 1000); each holds one whole GPU "
        "unless the run shares GPUs (--gpu-sharing on)",
        path, shared_gpu);
  if (multi_model > 0)
    spdlog::info(
        "{}: {} pods accept several GPU models (gpu_spec 'A|B'); runs that share GPUs place them "
        "on one of those, other runs on any type",
        path, multi_model);
  return raw;
}

ReaderDef alibaba_openb_reader() {
  return ReaderDef{
      "alibaba-openb",
      "Alibaba GPU 2023 openb pods: name, num_gpu, gpu_milli, pod_phase, creation/scheduled/"
      "deletion_time",
      [](std::string_view, std::string_view text) {
        const auto header = trace_kit::header_fields(text);
        return trace_kit::header_has(
            header, {"name", "num_gpu", "pod_phase", "creation_time", "scheduled_time"});
      },
      read_openb, "name"};
}

}  // namespace

SCHEDLAB_REGISTER(ReaderDef, alibaba_openb_reader())

}  // namespace schedlab
