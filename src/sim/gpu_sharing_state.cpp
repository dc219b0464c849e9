#include "gpu_sharing_state.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

// The random-fit placement's own stream, so that it does not shift other draws from the seed.
constexpr std::uint64_t kSharingStream = 0x5348415245445047ULL;  // "SHAREDPG"

bool all_nodes_give(const Cluster& cluster, std::int64_t NodeCapacity::*field) {
  return std::all_of(cluster.nodes().begin(), cluster.nodes().end(),
                     [&](const Node& n) { return n.capacity.*field > 0; });
}

std::vector<SharedNode> shared_nodes(const Cluster& cluster, bool cpu, bool memory) {
  if (cluster.gpu_types().size() > kMaxSharedGpuTypes)
    throw ConfigError(
        fmt::format("{}: --gpu-sharing supports up to {} GPU types, the cluster has {}",
                    cluster.source(), kMaxSharedGpuTypes, cluster.gpu_types().size()));
  std::vector<SharedNode> nodes(cluster.node_count());
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const Node& node = cluster.node(n);
    SharedNode& shared = nodes[n];
    shared.gpu_type = static_cast<int>(node.type);
    shared.cpu_milli = cpu ? node.capacity.cpu_milli : 0;
    shared.memory_mib = memory ? node.capacity.memory_mib : 0;
    shared.cpu_milli_free = shared.cpu_milli;
    shared.memory_mib_free = shared.memory_mib;
    shared.gpu_milli_free.assign(static_cast<std::size_t>(node.gpus), kMilliPerGpu);
  }
  return nodes;
}

std::vector<int> gpu_list(GpuMask mask) {
  std::vector<int> gpus;
  for (; mask != 0; mask &= mask - 1) gpus.push_back(std::countr_zero(mask));
  return gpus;
}

GpuMask gpu_mask(const std::vector<int>& gpus) {
  GpuMask mask = 0;
  for (const int g : gpus) mask |= GpuMask{1} << g;
  return mask;
}

}  // namespace

GpuSharingState::GpuSharingState(const Trace& trace, const Cluster& cluster,
                                 const std::vector<GpuTypeIndex>& job_types,
                                 const RunOptions& options)
    : trace_(trace),
      job_types_(job_types),
      cpu_counted_(all_nodes_give(cluster, &NodeCapacity::cpu_milli)),
      memory_counted_(all_nodes_give(cluster, &NodeCapacity::memory_mib)),
      nodes_(shared_nodes(cluster, cpu_counted_, memory_counted_)),
      meter_([&] {
        std::vector<SharedTask> tasks;
        tasks.reserve(trace.jobs.size());
        for (JobIndex j = 0; j < trace.jobs.size(); ++j) tasks.push_back(task_of(j));
        return task_mix(tasks);
      }()),
      rng_(options.seed ^ kSharingStream),
      placer_(parse_shared_placement(options.gpu_sharing), nodes_, &meter_, rng_),
      node_fragmentation_(cluster.node_count(), 0.0) {
  bool asks_cpu = false, asks_memory = false;
  for (const JobSpec& job : trace.jobs) {
    asks_cpu |= job.cpu_milli > 0;
    asks_memory |= job.memory_mib > 0;
  }
  if (asks_cpu && !cpu_counted_)
    spdlog::warn("{}: jobs ask for CPU, but not every node gives its cpu_milli: CPU is not counted",
                 cluster.source());
  if (asks_memory && !memory_counted_)
    spdlog::warn(
        "{}: jobs ask for memory, but not every node gives its memory_mib: memory is not counted",
        cluster.source());
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    placer_.set_usable(n, cluster.node_state(n) == NodeState::kOn);
    refresh_fragmentation(n);
  }
  synced_node_version_ = cluster.node_state_version();
}

SharedTask GpuSharingState::task_of(JobIndex job) const {
  const JobSpec& spec = trace_.jobs[job];
  SharedTask task;
  task.gpus = spec.gpus;
  task.gpu_milli = spec.gpu_milli > 0 ? spec.gpu_milli : kMilliPerGpu;
  task.cpu_milli = cpu_counted_ ? spec.cpu_milli : 0;
  task.memory_mib = memory_counted_ ? spec.memory_mib : 0;
  const GpuTypeIndex type = job_types_[job];
  if (type != kAnyGpuType && type != kUnknownGpuType) task.gpu_type_mask = std::uint64_t{1} << type;
  return task;
}

SharedTask GpuSharingState::task_on_node(JobIndex job, const NodeAllocation& allocation) const {
  SharedTask task = task_of(job);
  if (trace_.jobs[job].uses_sharing()) return task;
  task.gpus = allocation.gpu_count();
  return task;
}

bool GpuSharingState::fits_some_node(JobIndex job) const {
  if (job_types_[job] == kUnknownGpuType) return false;
  SharedTask task = task_of(job);
  for (const SharedNode& node : nodes_) {
    if (!type_accepted(node, task)) continue;
    if (node.cpu_milli >= task.cpu_milli && node.memory_mib >= task.memory_mib &&
        node.gpu_count() >= task.gpus)
      return true;
  }
  return false;
}

bool GpuSharingState::may_fit_now(JobIndex job, const Cluster& cluster) const {
  const JobSpec& spec = trace_.jobs[job];
  const GpuTypeIndex type = job_types_[job];
  if (type == kUnknownGpuType) return false;
  if (cluster.free_gpus_of(type) >= spec.gpus) return true;
  return spec.gpu_milli > 0 && snapshot_.partly_used_gpus > 0;
}

std::optional<Placement> GpuSharingState::choose(JobIndex job, const Cluster& cluster) {
  SCHEDLAB_ASSERT(trace_.jobs[job].uses_sharing(), "the shared placement places sharing jobs");
  sync_nodes(cluster);
  const auto chosen = placer_.choose(task_of(job));
  if (!chosen) return std::nullopt;
  return Placement{{static_cast<NodeIndex>(chosen->node), gpu_mask(chosen->gpus)}};
}

std::string GpuSharingState::check(JobIndex job, const Placement& placement,
                                   const Cluster& cluster) const {
  const JobSpec& spec = trace_.jobs[job];
  if (spec.uses_sharing() && placement.size() != 1)
    return fmt::format("a job asking for part of a GPU, CPU or memory runs on one node, not {}",
                       placement.size());
  for (std::size_t i = 0; i < placement.size(); ++i) {
    const NodeAllocation& a = placement[i];
    if (a.node >= cluster.node_count() || (i > 0 && placement[i - 1].node >= a.node) ||
        a.gpus == 0 || (a.gpus & ~cluster.node(a.node).all_mask()) != 0)
      return "placement names GPUs that do not exist, or is not sorted by node";
    if (cluster.node_state(a.node) != NodeState::kOn)
      return fmt::format("node {} is {}", a.node, node_state_name(cluster.node_state(a.node)));
    const SharedTask task = task_on_node(job, a);
    const SharedNode& node = nodes_[a.node];
    for (GpuMask m = a.gpus; m != 0; m &= m - 1) {
      const int g = std::countr_zero(m);
      if (node.gpu_milli_free[static_cast<std::size_t>(g)] < task.gpu_milli)
        return fmt::format("GPU {} of node {} has {} milli left, the job needs {}", g, a.node,
                           node.gpu_milli_free[static_cast<std::size_t>(g)], task.gpu_milli);
    }
    if (node.cpu_milli_free < task.cpu_milli || node.memory_mib_free < task.memory_mib)
      return fmt::format("node {} has {} CPU milli and {} MiB left, the job needs {} and {}",
                         a.node, node.cpu_milli_free, node.memory_mib_free, task.cpu_milli,
                         task.memory_mib);
  }
  return "";
}

Placement GpuSharingState::allocate(JobIndex job, const Placement& placement) {
  Placement was_idle;
  for (const NodeAllocation& a : placement) {
    const SharedNode& node = nodes_[a.node];
    GpuMask idle = 0;
    for (GpuMask m = a.gpus; m != 0; m &= m - 1) {
      const int g = std::countr_zero(m);
      if (node.gpu_milli_free[static_cast<std::size_t>(g)] == kMilliPerGpu)
        idle |= GpuMask{1} << g;
      else
        --snapshot_.partly_used_gpus;
    }
    const SharedTask task = task_on_node(job, a);
    placer_.commit(a.node, task, gpu_list(a.gpus));
    snapshot_.allocated_gpu_milli += task.gpu_milli * static_cast<std::int64_t>(a.gpu_count());
    for (GpuMask m = a.gpus; m != 0; m &= m - 1)
      if (node.gpu_milli_free[static_cast<std::size_t>(std::countr_zero(m))] > 0)
        ++snapshot_.partly_used_gpus;
    refresh_fragmentation(a.node);
    if (idle != 0) was_idle.push_back({a.node, idle});
  }
  return was_idle;
}

Placement GpuSharingState::release(JobIndex job, const Placement& placement) {
  Placement now_idle;
  for (const NodeAllocation& a : placement) {
    const SharedNode& node = nodes_[a.node];
    for (GpuMask m = a.gpus; m != 0; m &= m - 1)
      if (node.gpu_milli_free[static_cast<std::size_t>(std::countr_zero(m))] > 0)
        --snapshot_.partly_used_gpus;
    const SharedTask task = task_on_node(job, a);
    placer_.release(a.node, task, gpu_list(a.gpus));
    snapshot_.allocated_gpu_milli -= task.gpu_milli * static_cast<std::int64_t>(a.gpu_count());
    GpuMask idle = 0;
    for (GpuMask m = a.gpus; m != 0; m &= m - 1) {
      const int g = std::countr_zero(m);
      const int left = node.gpu_milli_free[static_cast<std::size_t>(g)];
      if (left == kMilliPerGpu)
        idle |= GpuMask{1} << g;
      else
        ++snapshot_.partly_used_gpus;
    }
    refresh_fragmentation(a.node);
    if (idle != 0) now_idle.push_back({a.node, idle});
  }
  return now_idle;
}

void GpuSharingState::refresh_fragmentation(NodeIndex node) {
  snapshot_.fragmentation_milli -= node_fragmentation_[node];
  node_fragmentation_[node] = placer_.usable(node) ? placer_.node_fragmentation_milli(node) : 0.0;
  snapshot_.fragmentation_milli += node_fragmentation_[node];
}

void GpuSharingState::sync_nodes(const Cluster& cluster) {
  if (synced_node_version_ == cluster.node_state_version()) return;
  synced_node_version_ = cluster.node_state_version();
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const bool on = cluster.node_state(n) == NodeState::kOn;
    if (on == placer_.usable(n)) continue;
    placer_.set_usable(n, on);
    refresh_fragmentation(n);
  }
}

void GpuSharingState::check_invariants(const Cluster& cluster) const {
  std::int64_t allocated = 0, partly = 0;
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const SharedNode& node = nodes_[n];
    check_node_invariants(node);
    GpuMask idle = 0;
    for (int g = 0; g < node.gpu_count(); ++g) {
      const int left = node.gpu_milli_free[static_cast<std::size_t>(g)];
      allocated += kMilliPerGpu - left;
      if (left == kMilliPerGpu)
        idle |= GpuMask{1} << g;
      else if (left > 0)
        ++partly;
    }
    const GpuMask expected = cluster.node_state(n) == NodeState::kOn ? idle : 0;
    if (cluster.node(n).free_mask != expected)
      throw InvariantError(fmt::format(
          "node {}: free GPUs {:#x} in the cluster, but GPUs with all their milli left {:#x}", n,
          cluster.node(n).free_mask, expected));
  }
  if (allocated != snapshot_.allocated_gpu_milli || partly != snapshot_.partly_used_gpus)
    throw InvariantError(fmt::format(
        "sharing totals: {} milli held and {} GPUs partly used counted, {} and {} on the nodes",
        snapshot_.allocated_gpu_milli, snapshot_.partly_used_gpus, allocated, partly));
}

}  // namespace schedlab
