// What a job is (JobSpec, immutable, from the trace) and what has happened to it (JobState,
// owned by the engine).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedlab/placement.hpp"
#include "schedlab/string_pool.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

inline constexpr TimeMs kUnsetMs = -1;
// Ranges of trace values every reader and writer keeps to.
inline constexpr std::int64_t kMaxTraceGpus = 1'000'000'000;
inline constexpr std::int64_t kMinTracePriority = INT64_MIN / 2;
inline constexpr std::int64_t kMaxTracePriority = INT64_MAX / 2;

// How strongly a job's progress suffers when its GPUs are spread over slower links (trace column
// `comm`; docs/cluster.md). Used only with a speed model that includes communication.
enum class CommSensitivity : std::uint8_t { kNone, kLow, kMedium, kHigh };
inline constexpr int kCommSensitivityCount = 4;
const char* comm_sensitivity_name(CommSensitivity comm);

// One job as the trace describes it. All times are integer milliseconds.
// Largest CPU and memory request a trace may carry (a 1,000,000-core, 1 PiB node).
inline constexpr std::int64_t kMaxTraceCpuMilli = 1'000'000'000;
inline constexpr std::int64_t kMaxTraceMemoryMib = 1'073'741'824;

struct JobSpec {
  std::string id;         // unique within the trace
  TimeMs submit_ms = 0;   // >= 0
  std::int32_t gpus = 1;  // >= 1
  // GPU sharing (docs/gpu-sharing.md): with gpus = 1, a fraction of one GPU in thousandths
  // (1..999); 0 = whole GPUs. CPU (thousandths of a core) and memory the job needs on its node;
  // 0 = none asked. A job asking for any of the three is placed by the run's shared placement.
  std::int32_t gpu_milli = 0;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  TimeMs duration_ms = 0;         // true run time at reference speed, > 0
  TimeMs walltime_ms = kUnsetMs;  // requested limit / estimate; kUnsetMs = none given
  std::int64_t priority = 0;      // larger is more important
  StringId user = 0;              // into Trace::strings
  StringId tenant = 0;            // virtual cluster / tenant
  StringId gpu_type = 0;          // constraint; 0 = any type
  // Several accepted GPU types ("A|B"): index into Trace::gpu_type_sets; 0 = none. Honoured by
  // the shared placement (docs/gpu-sharing.md); gpu_type is then 0.
  std::uint32_t gpu_type_set = 0;
  // A MIG profile the job runs in (mig.hpp, e.g. "3g.40gb"), with gpus = 1; 0 = none.
  StringId mig_profile = 0;
  StringId status = 0;  // original trace status, if the format has one
  bool preemptible = true;
  CommSensitivity comm = CommSensitivity::kMedium;  // trace column `comm`
  std::uint32_t speed_profile = 0;  // into Trace::speed_profiles; 0 = none (column `speeds`)
  TimeMs checkpoint_interval_ms = kUnsetMs;  // kUnsetMs = use the run's default
  TimeMs restart_overhead_ms = kUnsetMs;     // kUnsetMs = use the run's default
  std::uint32_t line = 0;                    // 1-based line of the record in its file

  // Whether the sharing model places the job (in runs that share GPUs): it asks for part of a
  // GPU, a MIG slice, CPU or memory, or accepts several GPU types.
  bool uses_sharing() const {
    return gpu_milli > 0 || cpu_milli > 0 || memory_mib > 0 || mig_profile != 0 ||
           gpu_type_set != 0;
  }
  // Whether the job holds part of one GPU (a fraction or a MIG slice) in runs that share GPUs.
  bool shares_a_gpu() const { return gpu_milli > 0 || mig_profile != 0; }
};

// A loaded trace: jobs in file order plus the interned strings they refer to.
struct Trace {
  std::string path;
  std::string format;  // reader that produced it, e.g. "native"
  std::vector<JobSpec> jobs;
  StringPool strings;
  // Per-job relative GPU speeds (trace column `speeds`, "TYPE=X;..."): [profile] = (gpu type
  // name, speed > 0) pairs overriding the cluster's per-type speed. Profile 0 is empty.
  std::vector<std::vector<std::pair<StringId, double>>> speed_profiles{{}};
  // Sets of accepted GPU type names (JobSpec::gpu_type_set), each of two or more distinct names
  // in the trace's order. Set 0 is empty.
  std::vector<std::vector<StringId>> gpu_type_sets{{}};
  // Jobs the reader skipped, by reason (count), e.g. "no duration". Deterministic order.
  std::vector<std::pair<std::string, std::uint64_t>> skipped;
};

enum class JobStatus : std::uint8_t {
  kNotSubmitted,     // before its submit time
  kQueued,           // waiting for the policy
  kRunning,          // holds GPUs
  kCompleted,        // ran to the end of its duration
  kWalltimeReached,  // killed at its walltime
  kRejected,         // no placement could ever satisfy it
};

// Why a job was rejected at submit: no placement could ever satisfy it.
enum class RejectReason : std::uint8_t {
  kNone,
  kMoreGpusThanCluster,  // needs more GPUs than the whole cluster has
  kMoreGpusThanType,     // needs more GPUs of its gpu_type than the cluster has
  kGpuTypeNotInCluster,  // its gpu_type has no GPUs in the cluster
  kFitsNoNode,           // asks for CPU, memory or GPUs with them that no single node has
};
const char* reject_reason_text(RejectReason reason);

bool is_final(JobStatus status);
const char* batsim_final_state(JobStatus status);

// Engine-owned state of one job. Observers read it through RunView, policies through JobView.
struct JobState {
  JobStatus status = JobStatus::kNotSubmitted;
  RejectReason reject_reason = RejectReason::kNone;
  std::uint16_t failures = 0;  // attempts killed by a node failure (saturates)
  std::uint32_t attempt = 0;   // incremented at each start; stale events carry old ones
  TimeMs first_start_ms = kUnsetMs;
  TimeMs last_start_ms = kUnsetMs;    // start of the current/last attempt
  TimeMs queued_since_ms = kUnsetMs;  // when it last entered the queue
  TimeMs finish_ms = kUnsetMs;
  TimeMs walltime_ms = 0;           // effective limit the policies see (> 0)
  TimeMs remaining_work_ms = 0;     // work left at reference speed
  TimeMs checkpointed_work_ms = 0;  // work saved by the last checkpoint
  TimeMs overhead_ms = 0;           // restart overhead charged at the current start
  // Part of overhead_ms before the walltime clock starts: a MIG layout change for this attempt.
  TimeMs setup_ms = 0;
  // The job's checkpoint interval and restart overhead: its trace columns, else the run's
  // options; resolved once, when the run begins.
  TimeMs checkpoint_interval_ms = 0;
  TimeMs restart_overhead_ms = 0;
  TimeMs run_ms = 0;       // total time held GPUs, over all attempts
  TimeMs lost_gpu_ms = 0;  // GPU-ms redone or spent on restart overhead
  // Slowdown of the current/last attempt: ms held per reference-ms of work, the inverse of its
  // progress rate (1 = reference speed). Above 1 on slower GPUs or when its placement crosses
  // slow links (docs/cluster.md).
  double slowdown = 1.0;
  std::uint32_t restarts = 0;
  std::uint32_t preemptions = 0;
  Placement placement;  // current (running) or last placement
};

}  // namespace schedlab
