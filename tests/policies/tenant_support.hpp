// Helpers shared by the tenant policy tests (fair-share, drf): a tenants file, runs with it, and
// GPU-time per tenant re-derived from jobs.csv.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "schedlab/run_options.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/types.hpp"

namespace schedlab::testing {

// Options with --tenants FILE, FILE holding `tenants_json` (written to a fresh temp dir).
RunOptions with_tenants(const std::string& tenants_json);

// One job's row of jobs.csv as the tenant tests read it (times in ms).
struct JobRow {
  std::string tenant;
  std::int64_t gpus = 0;
  TimeMs submit_ms = 0;
  TimeMs start_ms = -1;   // -1: never started
  TimeMs finish_ms = -1;  // -1: never finished
};
std::map<std::string, JobRow> job_rows(const SimulationResult& result);

// GPU-seconds each tenant's jobs held within [0, until_ms), from their start and finish times
// (for runs without preemption: one attempt per job).
std::map<std::string, double> gpu_seconds_until(const SimulationResult& result, TimeMs until_ms);

}  // namespace schedlab::testing
