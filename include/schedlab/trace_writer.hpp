// Writing traces: schedlab's native CSV (every JobSpec field, lossless) and the Standard
// Workload Format. Used by `schedlab convert` and `schedlab gen`.
#pragma once

#include <cstdint>
#include <string>

#include "schedlab/job.hpp"

namespace schedlab {

// Native CSV: id, submit_time, gpus, duration, then only the optional columns some job uses
// (walltime, priority, user, tenant, gpu_type, preemptible, checkpoint_interval,
// restart_overhead, status). Times as exact decimal seconds with 3 decimals, so reading the
// output gives back identical JobSpecs (line numbers aside).
std::string format_native_trace(const Trace& trace);

// What SWF could not hold exactly.
struct SwfWriteReport {
  std::uint64_t times_rounded = 0;      // submit/run/requested times not whole seconds
  std::uint64_t runs_raised_to_1s = 0;  // run times under 0.5 s written as 1 s
  bool jobs_renumbered = false;         // ids other than 1..N in trace order: SWF job numbers
                                        // are that counter, so the ids are replaced by it
  std::uint64_t users_mapped = 0;       // user names that are not integers, numbered 1..N
  std::uint64_t groups_mapped = 0;      // tenants that are not integers, numbered 1..N
  std::uint64_t statuses_unmapped = 0;  // jobs whose status has no SWF code, or is a
                                        // partial-execution code 2-4 (written -1)
  std::uint64_t fields_dropped = 0;     // jobs with priority, gpu_type, checkpointing,
                                        // preemptible=0, comm or speeds, which SWF cannot hold
};

// Standard Workload Format 2.2: job numbers 1..N in trace order; processors = GPUs; times in
// whole seconds (rounded half up); status: no status (a job the simulator replays as
// completed) and Pass/COMPLETED/Succeeded/Terminated -> 1, Failed/FAILED/NODE_FAIL/TIMEOUT -> 0,
// Killed/CANCELLED -> 5, integer statuses kept except 2-4 (partial-execution records, which
// readers skip), others -1; user and tenant -> user and group numbers (kept when all are
// canonical integers, else numbered in first-seen order and listed in the header, with control
// characters escaped).
std::string format_swf_trace(const Trace& trace, SwfWriteReport* report = nullptr);

// Writes a trace file atomically (write_file_atomically); a name ending in .gz is
// gzip-compressed. Throws ConfigError when the directory does not exist, OutputError when the
// file cannot be written; nothing partial remains.
void write_trace_file(const std::string& path, const std::string& content);

}  // namespace schedlab
