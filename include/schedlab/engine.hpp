// The discrete-event engine: replays a trace against a cluster with a policy.
//
// Per instant: every event at that time is applied in (kind, sequence) order, then the policy
// runs once if anything changed. The run ends when every job is final; if jobs are still
// queued and nothing is left to happen, run() throws StuckError naming them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/engine_stats.hpp"
#include "schedlab/job.hpp"
#include "schedlab/observer.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/run_options.hpp"
#include "schedlab/tenants.hpp"

namespace schedlab {

class Engine {
 public:
  // Throws ConfigError if options conflict with the trace (e.g. --estimate column without
  // walltimes) or a job's gpu_type is unknown to the cluster.
  Engine(const Trace& trace, const Cluster& cluster, Policy& policy, const RunOptions& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Observers are called in the order added; they must outlive run().
  void add_observer(Observer& observer);
  EngineStats run();

  const std::vector<JobState>& states() const;
  const Cluster& cluster() const;
  // The run's tenants, resolved when the engine was made (docs/tenants.md).
  const TenantTable& tenants() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedlab
