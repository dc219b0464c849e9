// Workload resampling: replicates that vary the workload, not only the failure model
// (docs/workflows.md, "Replicates"). Each method turns a trace into another plausible workload of
// the same cluster, drawn from a seed; the seeds axis of a sweep then gives replicates whose
// spread measures the workload's uncertainty.
//
// Methods, and what each keeps (checked against the original in tests/traces/test_resample.cpp):
// - none: the trace itself.
// - bootstrap[:BLOCK] (BLOCK default 1d): the trace's span is cut into blocks of BLOCK by submit
//   time; as many blocks are drawn with replacement and laid end to end, each keeping its jobs'
//   offsets within the block. Keeps the span (up to whole blocks), the expected job count and
//   offered load, the job-size and duration mix over the jobs drawn, and the arrival pattern
//   within a block (the daily cycle with 1d blocks); varies which days (or hours) make up the
//   trace.
// - jitter:X (0 < X < 1): every inter-arrival gap and every duration is multiplied by its own
//   factor drawn uniformly from [1 - X, 1 + X] (a job's walltime by its duration's factor, so its
//   over-estimate is kept). Keeps the jobs, their order and sizes, the expected load and the
//   burstiness up to X; varies exact times.
// - window:D: the jobs submitted in [s, s + D), s the submit time of a job drawn uniformly
//   among those submitted at least D before the last submission (or the first job when the
//   trace is shorter than D). Keeps the arrival process within the window exactly; varies the
//   period, and with it load and mix, as periods of the real cluster do.
// Job ids stay unique: bootstrap adds "~K" (K = the output block) to every id; the other
// methods keep ids. The result depends only on the trace, the method and the seed, drawn from a
// random stream of its own (the failure model's stream of the same seed is another).
#pragma once

#include <cstdint>
#include <string>

#include "schedlab/job.hpp"
#include "schedlab/resample_spec.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

// Parses "none", "bootstrap", "bootstrap:BLOCK", "jitter:X", "window:D" (times in seconds or
// with a unit: 90s, 30m, 12h, 2d). Throws ConfigError "--resample 'TEXT': ..." naming what
// is expected.
ResampleSpec parse_resample(const std::string& text);

// The resampled trace (a copy for none). `seed` draws the blocks, factors or window. Throws
// check_time_range's ConfigError first.
Trace resample_trace(const Trace& trace, const ResampleSpec& spec, std::uint64_t seed);

// Refuses, before any time is converted, a load scale (arrival gaps divided by it) and a
// resampling that could take an arrival or a duration beyond the clock's limit (kMaxTimeMs):
// ConfigError "load scale L[ with --resample 'jitter:X']: ... beyond the clock's limit of ...".
void check_time_range(const Trace& trace, double load_scale, const ResampleSpec& spec);

}  // namespace schedlab
