#include "what_if_cluster.hpp"

#include <algorithm>
#include <bit>

#include "gpu_sharing_state.hpp"
#include "schedlab/error.hpp"

namespace schedlab {

Cluster& WhatIfCluster::scratch() const {
  if (!scratch_) {
    scratch_.emplace(real_);
    synced_node_version_ = real_.node_state_version();
  } else if (synced_node_version_ != real_.node_state_version()) {
    scratch_->sync_node_states(real_);  // failures, repairs, power saving
    synced_node_version_ = real_.node_state_version();
  }
  return *scratch_;
}

void WhatIfCluster::touch(NodeIndex node) {
  if (is_touched_.empty()) {
    is_touched_.assign(real_.node_count(), 0);
    held_.assign(real_.node_count(), 0);
    freed_.assign(real_.node_count(), 0);
  }
  if (is_touched_[node] != 0) return;
  is_touched_[node] = 1;
  touched_.push_back(node);
}

void WhatIfCluster::release(JobIndex running_job) {
  SCHEDLAB_ASSERT(
      running_job < states_.size() && states_[running_job].status == JobStatus::kRunning,
      "WhatIf::release takes a running job");
  const Placement& placement = states_[running_job].placement;
  Cluster& copy = scratch();
  if (sharing_ != nullptr && (*specs_)[running_job].shares_a_gpu()) {
    // Part of one GPU (a fraction or a MIG slice): free here once every share of it is released.
    const NodeAllocation& a = placement.front();
    const int gpu = std::countr_zero(a.gpus);
    int& released =
        released_milli_[copy.node(a.node).first_gpu_id + static_cast<std::uint64_t>(gpu)];
    released += sharing_->share_milli(running_job, a.node);
    if (sharing_->gpu_used_milli(a.node, gpu) > released) return;
  }
  for (const auto& a : placement) {
    SCHEDLAB_ASSERT((copy.node(a.node).free_mask & a.gpus) == 0,
                    "WhatIf::release of a job whose GPUs are already free here");
    touch(a.node);
    // GPUs held here on top of a tentatively freed job cannot exist: they were busy.
    freed_[a.node] |= a.gpus;
  }
  copy.release(placement);
}

void WhatIfCluster::hold(const Placement& free_gpus) {
  Cluster& copy = scratch();
  SCHEDLAB_ASSERT(copy.can_allocate(free_gpus), "WhatIf::hold takes GPUs free in the copy");
  for (const auto& a : free_gpus) {
    touch(a.node);
    // Holding GPUs freed tentatively undoes that release; others become held.
    const GpuMask undo = freed_[a.node] & a.gpus;
    freed_[a.node] &= ~undo;
    held_[a.node] |= a.gpus & ~undo;
  }
  copy.allocate(free_gpus);
}

std::optional<Placement> WhatIfCluster::place(GpuTypeIndex type, int gpus) const {
  const Cluster& copy = scratch();
  if (copy.free_gpus_of(type) < gpus) return std::nullopt;
  return strategy_.place(copy, type, gpus);
}

void WhatIfCluster::reset() {
  released_milli_.clear();
  if (touched_.empty()) return;
  Cluster& copy = scratch();
  Placement to_release;
  Placement to_allocate;
  std::sort(touched_.begin(), touched_.end());
  for (NodeIndex node : touched_) {
    if (held_[node] != 0) to_release.push_back({node, held_[node]});
    if (freed_[node] != 0) to_allocate.push_back({node, freed_[node]});
    held_[node] = 0;
    freed_[node] = 0;
    is_touched_[node] = 0;
  }
  touched_.clear();
  if (!to_release.empty()) copy.release(to_release);
  if (!to_allocate.empty()) copy.allocate(to_allocate);
}

void WhatIfCluster::on_real_start(const Placement& placement) {
  if (!scratch_) return;
  Cluster& copy = scratch();
  if (touched_.empty()) {
    copy.allocate(placement);
    return;
  }
  Placement rest;
  for (const auto& a : placement) {
    const GpuMask taken_over = is_touched_[a.node] != 0 ? held_[a.node] & a.gpus : 0;
    if (taken_over != 0) held_[a.node] &= ~taken_over;
    if ((a.gpus & ~taken_over) != 0) rest.push_back({a.node, a.gpus & ~taken_over});
  }
  if (!rest.empty()) copy.allocate(rest);
}

void WhatIfCluster::on_real_stop(const Placement& placement) {
  if (!scratch_) return;
  Cluster& copy = scratch();
  if (touched_.empty()) {
    copy.release(placement);
    return;
  }
  Placement rest;
  for (const auto& a : placement) {
    const GpuMask already = is_touched_[a.node] != 0 ? freed_[a.node] & a.gpus : 0;
    if (already != 0) freed_[a.node] &= ~already;
    if ((a.gpus & ~already) != 0) rest.push_back({a.node, a.gpus & ~already});
  }
  if (!rest.empty()) copy.release(rest);
}

void WhatIfCluster::check_equal(const Cluster& real) const {
  SCHEDLAB_ASSERT(touched_.empty() && scratch().free_gpus() == real.free_gpus(),
                  "the framework's what-if cluster agrees with the engine's free GPUs");
}

}  // namespace schedlab
