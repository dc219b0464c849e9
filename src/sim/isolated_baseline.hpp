// Finish-time fairness (Themis, NSDI 2020): each tenant's jobs replayed alone on a dedicated
// partition of its entitled size, for rho = mean JCT shared / mean JCT alone (docs/tenants.md).
#pragma once

#include <optional>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/tenants.hpp"

namespace schedlab {

struct IsolatedResult {
  std::optional<double> rho;  // unset: no job finished both shared and alone
  std::int64_t partition_gpus = 0;
  std::uint64_t compared_jobs = 0;  // jobs that finished in both runs
};

// Per tenant of `table`: its jobs run alone, with the run's `policy` and the request's options, on
// entitled_share x each GPU type's GPUs of the cluster (rounded to whole GPUs, in nodes of the
// type's first node size). `shared` holds the job states of the shared run.
std::vector<IsolatedResult> run_isolated_baselines(
    const Trace& trace, const ClusterSpec& cluster_spec, const SimulationRequest& request,
    const ResolvedPolicy& policy, const TenantTable& table, const std::vector<JobState>& shared);

}  // namespace schedlab
