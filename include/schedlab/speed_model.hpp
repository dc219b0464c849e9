// Placement-dependent speed (docs/cluster.md): a job's progress rate on a placement is the
// speed of the slowest GPU type in it (per-type `speed` in the cluster spec, overridable per
// job by the trace column `speeds`) divided by the communication factor of the slowest link
// level the placement crosses for the job's `comm` sensitivity. Rate 1 = reference speed.
// The engine keeps its inverse, the slowdown = factor / speed (ms held per reference-ms), so
// that decimal factors give exact times: an attempt's work of W reference-ms takes
// ceil(W x slowdown) ms.
#pragma once

#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab {

class SpeedModelEvaluator {
 public:
  // Resolves the trace's per-job speed profiles against the cluster's GPU types (names the
  // cluster does not have are ignored). Builds the cluster's topology when `comm` is on.
  SpeedModelEvaluator(const Trace& trace, const Cluster& cluster, SpeedModel model);

  // Slowdown (> 0; 1 / progress rate) of `spec` on `placement` in `cluster`.
  double slowdown(const Cluster& cluster, const JobSpec& spec, const Placement& placement) const;

  // Speed of `spec` on GPU type `type`: the job's own figure if its profile has one.
  double gpu_speed(const Cluster& cluster, const JobSpec& spec, GpuTypeIndex type) const;

 private:
  bool gpu_on_ = false;
  bool comm_on_ = false;
  std::size_t type_count_ = 0;
  // [profile * type_count_ + type] = the job's speed on that type, or 0 = the type's own.
  std::vector<double> profile_speeds_;
};

// Held time after which `remaining_ms` of work is done: ceil(remaining x slowdown).
TimeMs work_time_ms(TimeMs remaining_ms, double slowdown);
// Reference-ms of work done after `elapsed_ms` of progress time: floor(elapsed / slowdown), but
// never all of `remaining_ms` before work_time_ms(remaining_ms, slowdown), and all from then on.
TimeMs progress_at_slowdown(TimeMs elapsed_ms, TimeMs remaining_ms, double slowdown);

}  // namespace schedlab
