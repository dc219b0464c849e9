// The engine's GPU sharing (--gpu-sharing PLACEMENT; docs/gpu-sharing.md): every node's GPU milli,
// CPU and memory left, and the shared placement that places jobs asking for part of a GPU, CPU or
// memory.
//
// Contracts:
// - One owner: the SharedNode of each cluster node, changed only through allocate() / release(),
//   which the engine calls at every start and end of an attempt (whole-GPU jobs included, as
//   1000 milli per GPU). The Cluster's free masks stay the engine's record of idle GPUs: a GPU is
//   free there exactly when it has all its milli left here and its node is on. allocate() and
//   release() return the GPUs whose idleness changed, for the engine to apply to the Cluster.
// - Jobs that ask for a fraction of a GPU, CPU or memory (JobSpec::uses_sharing) run on one node
//   and are placed by the shared placement; other jobs by the run's whole-GPU strategy.
// - CPU (memory) is counted only when every node of the cluster gives its capacity; otherwise
//   requests for it are ignored, with one warning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/gpu_fragmentation.hpp"
#include "schedlab/job.hpp"
#include "schedlab/observer.hpp"
#include "schedlab/random.hpp"
#include "schedlab/run_options.hpp"
#include "schedlab/shared_placement.hpp"

namespace schedlab {

class GpuSharingState {
 public:
  // `job_types`: each job's GPU type index (kAnyGpuType, kUnknownGpuType or a type).
  GpuSharingState(const Trace& trace, const Cluster& cluster,
                  const std::vector<GpuTypeIndex>& job_types, const RunOptions& options);

  // Whether some node could host the job when idle (its GPUs, type, CPU and memory).
  bool fits_some_node(JobIndex job) const;
  // Necessary for choose() or a whole-GPU placement to succeed now (not sufficient).
  bool may_fit_now(JobIndex job, const Cluster& cluster) const;
  // Where the shared placement puts a sharing job now, or nullopt. Nodes that are not on are
  // never chosen.
  std::optional<Placement> choose(JobIndex job, const Cluster& cluster);
  // Why `placement` cannot take the job now ("" when it can).
  std::string check(JobIndex job, const Placement& placement, const Cluster& cluster) const;
  // Takes the job's resources on `placement` and returns the GPUs that were idle before.
  Placement allocate(JobIndex job, const Placement& placement);
  // Gives them back and returns the GPUs idle again.
  Placement release(JobIndex job, const Placement& placement);
  // Brings node usability (on or not) up to the cluster's node states.
  void sync_nodes(const Cluster& cluster);
  const SharingSnapshot& snapshot() const { return snapshot_; }
  // InvariantError unless every node's GPU milli, CPU and memory are within capacity and the
  // cluster's free masks agree with the GPUs that have all their milli left.
  void check_invariants(const Cluster& cluster) const;
  const SharedNode& node(NodeIndex node) const { return nodes_[node]; }

 private:
  SharedTask task_of(JobIndex job) const;
  // The task one node allocation of `job` stands for (a multi-node job: its GPUs there, whole).
  SharedTask task_on_node(JobIndex job, const NodeAllocation& allocation) const;
  void refresh_fragmentation(NodeIndex node);

  const Trace& trace_;
  const std::vector<GpuTypeIndex>& job_types_;
  bool cpu_counted_ = false;
  bool memory_counted_ = false;
  std::vector<SharedNode> nodes_;
  FragmentationMeter meter_;
  Rng rng_;
  SharedPlacer placer_;
  std::uint64_t synced_node_version_ = ~std::uint64_t{0};
  std::vector<double> node_fragmentation_;  // [node] F_n(M) counted in the snapshot (0 if off)
  SharingSnapshot snapshot_;
};

}  // namespace schedlab
