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
// - A job with several accepted GPU types (JobSpec::gpu_type_set) runs on a node of one of them
//   that the cluster has; with none of them in the cluster it fits no node.
// - MIG (mig.hpp): on a GPU whose type has a MIG geometry, a job asking for a profile takes an
//   instance of the GPU's layout. A GPU holds MIG instances or other jobs, never both: to the
//   SharedNode it is fully used while any instance is busy (so the shared placement and the
//   fragmentation measure leave it alone), and its used milli are 125 per busy slot. MIG jobs are
//   placed by one rule, whatever the shared placement: a GPU with an idle instance of the profile
//   before one that needs a layout change, then the GPU with the most busy slots after placing,
//   then the lower node and GPU index. A whole-GPU or fractional job that takes an idle GPU with
//   a layout clears it. Each layout change counts once (mig_reconfigurations) and, for the job
//   that caused it, last_allocate_reconfigured() is true.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/gpu_fragmentation.hpp"
#include "schedlab/job.hpp"
#include "schedlab/mig.hpp"
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
  // Whether the last allocate() changed a MIG layout.
  bool last_allocate_reconfigured() const { return last_reconfigured_; }
  // Gives them back and returns the GPUs idle again.
  Placement release(JobIndex job, const Placement& placement);
  // Brings node usability (on or not) up to the cluster's node states.
  void sync_nodes(const Cluster& cluster);
  const SharingSnapshot& snapshot() const { return snapshot_; }
  // InvariantError unless every node's GPU milli, CPU and memory are within capacity and the
  // cluster's free masks agree with the GPUs that have all their milli left.
  void check_invariants(const Cluster& cluster) const;
  // Milli of GPU `gpu` of `node` in use: 125 per busy MIG slot, else 1000 minus what is left.
  int gpu_used_milli(NodeIndex node, int gpu) const;
  // Milli of its GPU that a job sharing one (JobSpec::shares_a_gpu) holds on `node`.
  int share_milli(JobIndex job, NodeIndex node) const;

 private:
  // The job's MIG profile in the geometry of `node`'s GPU type, or kNoMigProfile.
  int profile_on(JobIndex job, NodeIndex node) const;
  // Whether GPU `gpu` of `node` may take a MIG instance: idle, or holding instances already.
  bool open_to_mig(NodeIndex node, int gpu) const;
  std::optional<Placement> choose_mig(JobIndex job);
  std::string check_mig(JobIndex job, const NodeAllocation& allocation) const;
  // CPU and memory of the job (a MIG job placed on a GPU that holds instances already).
  SharedTask host_task(JobIndex job) const;
  // Records the used milli of `gpus` of `node` before a change (used_before_, in mask order).
  void note_used_before(NodeIndex node, GpuMask gpus);
  // Brings the snapshot's held milli, partly used GPUs and `node`'s fragmentation up to the
  // change since note_used_before; returns the GPUs that became busy or idle.
  GpuMask account_change(NodeIndex node, GpuMask gpus);
  SharedTask task_of(JobIndex job) const;
  // The task one node allocation of `job` stands for (a multi-node job: its GPUs there, whole).
  SharedTask task_on_node(JobIndex job, const NodeAllocation& allocation) const;
  void refresh_fragmentation(NodeIndex node);

  const Trace& trace_;
  const std::vector<GpuTypeIndex>& job_types_;
  bool cpu_counted_ = false;
  bool memory_counted_ = false;
  std::vector<std::uint64_t> type_set_masks_;      // [Trace::gpu_type_sets] cluster types
  std::vector<const MigGeometry*> type_geometry_;  // [cluster GPU type] or null
  std::unordered_map<StringId, std::vector<int>> profile_by_type_;  // profile name -> [type]
  std::vector<std::vector<MigLayout>> layouts_;  // [node][gpu]; empty without MIG
  std::vector<std::int8_t> mig_start_;           // [job] slot of its instance; -1 = none
  bool last_reconfigured_ = false;
  std::vector<int> used_before_;  // scratch of note_used_before / account_change
  std::vector<SharedNode> nodes_;
  FragmentationMeter meter_;
  Rng rng_;
  SharedPlacer placer_;
  std::uint64_t synced_node_version_ = ~std::uint64_t{0};
  std::vector<double> node_fragmentation_;  // [node] F_n(M) counted in the snapshot (0 if off)
  SharingSnapshot snapshot_;
};

}  // namespace schedlab
