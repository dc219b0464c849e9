// A trace's fingerprint: what it makes a simulation do (each job's id, submit time, GPUs,
// duration, walltime, priority, preemptibility, GPU type, and its sharing request when it has
// one), hashed with 64-bit FNV-1a to 16 hex digits. The file's path and format, and columns no
// policy reads, do not change it. A resumed sweep uses it to notice a changed trace file, and
// summary.json records it so that `check` can tell two runs of different traces apart.
#pragma once

#include <string>

#include "schedlab/job.hpp"

namespace schedlab {

std::string trace_fingerprint(const Trace& trace);

}  // namespace schedlab
