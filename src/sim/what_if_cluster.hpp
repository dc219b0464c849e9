// The framework's WhatIf: a scratch copy of the cluster kept equal to the engine's, on which
// policies make tentative changes that reset() undoes.
//
// Contract: the engine calls on_real_start / on_real_stop for every allocation and release it
// makes, and end_call() after every schedule() call. The copy is made on first
// use, so a policy that never plans pays nothing. Tentative changes are kept as per-node masks
// (GPUs held here though free in the engine, GPUs free here though busy there), so a real start
// on held GPUs takes them over and a real release of tentatively freed GPUs is already applied.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "schedlab/policy.hpp"

namespace schedlab {

class GpuSharingState;

class WhatIfCluster final : public WhatIf {
 public:
  WhatIfCluster(const Cluster& real, const PlacementStrategy& strategy,
                const std::vector<JobState>& states)
      : real_(real), strategy_(strategy), states_(states) {}

  // --- WhatIf ---
  const Cluster& cluster() const override { return scratch(); }
  void release(JobIndex running_job) override;
  void hold(const Placement& free_gpus) override;
  std::optional<Placement> place(GpuTypeIndex type, int gpus) const override;
  void reset() override;

  // --- the engine's side ---
  // With --gpu-sharing: a job holding part of a GPU frees it here only when the GPU's other
  // holders are released too.
  void set_sharing(const GpuSharingState* sharing, const std::vector<JobSpec>* specs) {
    sharing_ = sharing;
    specs_ = specs;
  }
  void on_real_start(const Placement& placement);
  void on_real_stop(const Placement& placement);
  // After every schedule() call: undoes the tentative changes and asserts that the copy matches
  // the engine's free GPUs. Free while the copy was never made.
  void end_call(const Cluster& real) {
    if (!scratch_) return;
    reset();
    check_equal(real);
  }

 private:
  Cluster& scratch() const;  // made on first use; node states brought up to date
  void check_equal(const Cluster& real) const;
  void touch(NodeIndex node);

  const Cluster& real_;
  const PlacementStrategy& strategy_;
  const std::vector<JobState>& states_;
  mutable std::optional<Cluster> scratch_;
  mutable std::uint64_t synced_node_version_ = 0;
  std::vector<GpuMask> held_;   // [node] GPUs held tentatively (free in the engine)
  std::vector<GpuMask> freed_;  // [node] GPUs freed tentatively (busy in the engine)
  std::vector<NodeIndex> touched_;
  std::vector<std::uint8_t> is_touched_;
  const GpuSharingState* sharing_ = nullptr;
  const std::vector<JobSpec>* specs_ = nullptr;
  std::unordered_map<std::uint64_t, int> released_milli_;  // [global GPU id] milli released here
};

}  // namespace schedlab
