// Options that change a run's results, shared by the engine, policies and metrics.
#pragma once

#include <cstdint>
#include <string>

#include "schedlab/types.hpp"

namespace schedlab {

// How walltimes (the estimates policies see) are derived when the trace gives none.
enum class EstimateMode : std::uint8_t {
  kExact,   // walltime = duration
  kFactor,  // walltime = duration * factor
  kColumn,  // the trace must give a walltime for every job
};

struct RunOptions {
  std::string placement = "pack";
  EstimateMode estimate = EstimateMode::kExact;
  double estimate_factor = 1.0;
  bool walltime_kill = true;                // kill a job that reaches its walltime
  TimeMs checkpoint_interval_ms = 0;        // 0: checkpoint at the moment of preemption
  TimeMs restart_overhead_ms = 30'000;      // charged at each restart before progress resumes
  TimeMs timeseries_interval_ms = 300'000;  // width of timeseries.csv rows
  std::uint64_t seed = 1;
};

// Parses "exact", "factor:X" (X > 0) or "column"; throws ConfigError.
void parse_estimate(const std::string& text, RunOptions& options);
std::string estimate_name(const RunOptions& options);

}  // namespace schedlab
