// One complete simulation: trace + cluster + policy -> metrics outputs. Shared by every
// command that runs the engine (run, compare, sweep) and by tests.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/cluster.hpp"
#include "schedlab/engine.hpp"
#include "schedlab/job.hpp"
#include "schedlab/job_classes.hpp"
#include "schedlab/observer.hpp"
#include "schedlab/run_options.hpp"
#include "schedlab/run_progress.hpp"
#include "schedlab/summary_fields.hpp"

namespace schedlab {

struct SimulationRequest {
  std::string policy = "fifo";
  std::map<std::string, std::string> params;
  RunOptions options;
  bool reproducible = false;  // write engine.wall_s as 0 so outputs are byte-identical
  // Render jobs.csv, attempts.csv and timeseries.csv; false: the summary alone (nothing else
  // is written, so nothing else is built).
  bool files = true;
  // Also replay each tenant's jobs alone on a partition of its entitled size and report
  // finish-time fairness (docs/tenants.md); needs tenants (--tenants or a tenant policy).
  bool isolated_baseline = false;
  // Called from the running thread as the run goes on (ProgressObserver); empty: not watched.
  RunProgressCallback progress;
  // Also break the summary down by these job classes: summary.json gains "by_size",
  // "by_duration", "by_tenant" or "by_user" (job_classes.hpp). None by default.
  std::vector<JobClassKind> job_classes;
  JobClassBounds class_bounds;
};

struct SimulationResult {
  nlohmann::ordered_json summary;
  std::string jobs_csv;
  std::string attempts_csv;
  std::string timeseries_csv;
  std::string tenants_csv;  // only when the run reports tenants (--tenants or a tenant policy)
  EngineStats engine;
};

// The files of a run's output directory, in writing order: summary.json (`summary_text`, the
// rendered summary), jobs.csv, attempts.csv, timeseries.csv and, when the run reports tenants,
// tenants.csv. The contents are viewed: `result` and `summary_text` must outlive the list.
std::vector<std::pair<std::string, std::string_view>> run_output_files(
    const SimulationResult& result, const std::string& summary_text);

// Runs the policy over the trace on a fresh copy of the cluster. Extra observers (e.g. an
// invariant checker in tests) are attached after the metrics collector.
// Throws InputError (bad options or parameters), StuckError, PolicyError, InvariantError.
SimulationResult simulate(const Trace& trace, const ClusterSpec& cluster_spec,
                          const SimulationRequest& request,
                          const std::vector<Observer*>& extra_observers = {});

}  // namespace schedlab
