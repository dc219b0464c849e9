#include "isolated_baseline.hpp"

#include <cmath>

#include "schedlab/engine.hpp"
#include "schedlab/policy.hpp"

namespace schedlab {

namespace {

// The tenant's partition: entitled_share of each GPU type's GPUs, in nodes of the type's first
// node size (the remainder as one smaller node).
ClusterSpec partition_of(const ClusterSpec& spec, const Cluster& cluster, double share) {
  ClusterSpec out;
  out.gpu_types = spec.gpu_types;
  out.source = spec.source + " (partition)";
  out.comm_factors = spec.comm_factors;
  out.pue = spec.pue;
  for (GpuTypeIndex type = 0; type < cluster.gpu_types().size(); ++type) {
    const std::int64_t total = cluster.total_gpus_of(type);
    if (total == 0) continue;
    const auto gpus =
        static_cast<std::int64_t>(std::floor(share * static_cast<double>(total) + 0.5));
    if (gpus == 0) continue;
    int node_gpus = 0;
    for (const auto& group : spec.groups)
      if (group.gpu_type == cluster.gpu_types()[type].name) {
        node_gpus = group.gpus_per_node;
        break;
      }
    NodeGroupSpec full;
    full.gpu_type = cluster.gpu_types()[type].name;
    full.gpus_per_node = node_gpus;
    full.count = static_cast<std::uint32_t>(gpus / node_gpus);
    if (full.count > 0) out.groups.push_back(full);
    if (gpus % node_gpus != 0) {
      NodeGroupSpec rest = full;
      rest.count = 1;
      rest.gpus_per_node = static_cast<int>(gpus % node_gpus);
      out.groups.push_back(rest);
    }
  }
  return out;
}

}  // namespace

std::vector<IsolatedResult> run_isolated_baselines(
    const Trace& trace, const ClusterSpec& cluster_spec, const SimulationRequest& request,
    const ResolvedPolicy& policy, const TenantTable& table, const std::vector<JobState>& shared) {
  const Cluster cluster(cluster_spec);
  std::vector<IsolatedResult> out(table.size());
  for (TenantIndex t = 0; t < table.size(); ++t) {
    Trace alone;
    alone.path = trace.path;
    alone.format = trace.format;
    alone.strings = trace.strings;
    alone.speed_profiles = trace.speed_profiles;
    std::vector<JobIndex> original;
    for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
      if (table.of_job(j) != t) continue;
      alone.jobs.push_back(trace.jobs[j]);
      original.push_back(j);
    }
    const ClusterSpec partition =
        partition_of(cluster_spec, cluster, table.tenant(t).entitled_share);
    for (const auto& group : partition.groups)
      out[t].partition_gpus += static_cast<std::int64_t>(group.count) * group.gpus_per_node;
    if (alone.jobs.empty() || partition.groups.empty()) continue;
    // The run's options, but node failures from a file name nodes the partition does not have.
    RunOptions options = request.options;
    options.failure_trace.reset();
    options.tenants.reset();
    const auto instance = policy.make();
    Engine engine(alone, Cluster(partition), *instance, options);
    engine.run();
    const std::vector<JobState>& states = engine.states();
    double shared_jct_ms = 0;
    double alone_jct_ms = 0;
    for (std::size_t k = 0; k < original.size(); ++k) {
      const JobState& mine = states[k];
      const JobState& theirs = shared[original[k]];
      if (mine.status == JobStatus::kRejected || theirs.status == JobStatus::kRejected) continue;
      const TimeMs submit_ms = alone.jobs[k].submit_ms;
      shared_jct_ms += static_cast<double>(theirs.finish_ms - submit_ms);
      alone_jct_ms += static_cast<double>(mine.finish_ms - submit_ms);
      ++out[t].compared_jobs;
    }
    if (out[t].compared_jobs > 0 && alone_jct_ms > 0) out[t].rho = shared_jct_ms / alone_jct_ms;
  }
  return out;
}

}  // namespace schedlab
