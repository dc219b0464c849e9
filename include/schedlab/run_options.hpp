// Options that change a run's results, shared by the engine, policies and metrics.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "schedlab/resample_spec.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

// How walltimes (the estimates policies see) are derived when the trace gives none.
enum class EstimateMode : std::uint8_t {
  kExact,   // walltime = duration
  kFactor,  // walltime = duration * factor
  kColumn,  // the trace must give a walltime for every job
};

// Which parts of the placement-dependent speed model are on (docs/cluster.md).
enum class SpeedModel : std::uint8_t {
  kOff,   // every job progresses at reference speed
  kGpu,   // at the speed of the slowest GPU type in its placement
  kComm,  // slowed by the slowest link level its placement crosses
  kFull,  // both
};

struct FailureTrace;  // failure_model.hpp
struct CarbonSeries;  // carbon.hpp
struct TenantsSpec;   // tenants.hpp

struct RunOptions {
  std::string placement = "pack";
  // --gpu-sharing: "off" (a fraction of a GPU holds a whole one; CPU and memory are not counted)
  // or the shared placement (shared_placement.hpp) that places jobs asking for a fraction of a
  // GPU, CPU or memory (docs/gpu-sharing.md).
  std::string gpu_sharing = "off";
  // --mig-reconfig: time a MIG layout change takes; the job that asked for it holds its slice
  // and makes no progress meanwhile (docs/gpu-sharing.md).
  TimeMs mig_reconfig_ms = 0;
  EstimateMode estimate = EstimateMode::kExact;
  double estimate_factor = 1.0;
  bool walltime_kill = true;                // kill a job that reaches its walltime
  TimeMs checkpoint_interval_ms = 0;        // 0: checkpoint at the moment of preemption
  TimeMs restart_overhead_ms = 30'000;      // charged at each restart before progress resumes
  TimeMs timeseries_interval_ms = 300'000;  // width of timeseries.csv rows
  std::uint64_t seed = 1;
  // --resample: the workload drawn from the trace by `seed` (resample_spec.hpp; the methods in
  // resample.hpp); none by default.
  ResampleSpec resample;

  // Cluster models (docs/cluster.md). All off by default: results and outputs are then exactly
  // those of the plain GPU model.
  SpeedModel speed_model = SpeedModel::kOff;
  double failure_rate_per_1000_node_days = 0;  // --failures rate=R; 0 = no generated failures
  TimeMs repair_ms = TimeMs{24} * 3'600'000;   // --failures repair=H
  std::optional<std::uint64_t> failure_seed;   // --failures seed=S; unset = --seed
  std::string failures_text;                   // the --failures argument as given
  std::shared_ptr<const FailureTrace> failure_trace;  // --failure-trace FILE
  bool node_power = false;                            // --node-power: node base and off power
  double pue = 0;                                     // --pue; 0 = the cluster spec's (default 1.0)
  TimeMs power_off_idle_ms = 0;                       // --power-off-idle; 0 = nodes never turn off
  TimeMs boot_time_ms = 300'000;                      // --boot-time
  std::shared_ptr<const CarbonSeries> carbon;         // --carbon FILE
  // --tenants (docs/tenants.md); unset: the trace's tenants with equal quotas, not reported.
  std::shared_ptr<const TenantsSpec> tenants;

  bool failures_on() const { return failure_rate_per_1000_node_days > 0 || failure_trace; }
  // Whether `seed` can change a result: only generated failures (--failures rate=R) draw random
  // numbers, and a failure seed of their own (--failures seed=S) takes them off `seed`.
  // Resampling the workload and the random-fit shared placement draw from `seed` too.
  bool seed_changes_results() const {
    return (failure_rate_per_1000_node_days > 0 && !failure_seed) ||
           resample.kind != ResampleKind::kNone || gpu_sharing == "random-fit";
  }
  bool gpu_sharing_on() const { return gpu_sharing != "off"; }
  bool speed_gpu_on() const {
    return speed_model == SpeedModel::kGpu || speed_model == SpeedModel::kFull;
  }
  bool speed_comm_on() const {
    return speed_model == SpeedModel::kComm || speed_model == SpeedModel::kFull;
  }
  // Any cluster model switched on by an option (the cluster spec's PUE counts too: see
  // cluster_models_active in power_model.hpp).
  bool cluster_models_on() const {
    return speed_model != SpeedModel::kOff || failures_on() || node_power || pue > 0 ||
           power_off_idle_ms > 0 || carbon;
  }
};

// Parses "off", "gpu", "comm" or "full"; throws ConfigError.
SpeedModel parse_speed_model(const std::string& text);
const char* speed_model_name(SpeedModel model);

// An option's seconds as whole milliseconds. Throws ConfigError "expected seconds >= 0" (or
// "> 0" without `allow_zero`) for a negative, non-finite or out-of-range value, and "below the
// clock's resolution of 1 ms" for a positive one that would round to 0 (and so mean "none");
// callers prefix the option's name.
TimeMs option_seconds_ms(double seconds, bool allow_zero);

// Parses "exact", "factor:X" (X > 0) or "column"; throws ConfigError.
void parse_estimate(const std::string& text, RunOptions& options);
std::string estimate_name(const RunOptions& options);

}  // namespace schedlab
