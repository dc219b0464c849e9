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

std::vector<std::uint64_t> type_set_masks(const Trace& trace, const Cluster& cluster) {
  std::vector<std::uint64_t> masks(trace.gpu_type_sets.size(), 0);
  for (std::size_t s = 1; s < trace.gpu_type_sets.size(); ++s)
    for (const StringId name : trace.gpu_type_sets[s])
      if (const auto type = cluster.find_gpu_type(trace.strings.str(name));
          type && *type < kMaxSharedGpuTypes)
        masks[s] |= std::uint64_t{1} << *type;
  return masks;
}

std::vector<const MigGeometry*> type_geometries(const Cluster& cluster) {
  std::vector<const MigGeometry*> geometries;
  for (const GpuType& type : cluster.gpu_types())
    geometries.push_back(type.mig.empty() ? nullptr : find_mig_geometry(type.mig));
  return geometries;
}

bool partly_used(int used_milli) {
  return used_milli > 0 && used_milli < kMilliPerGpu;
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
      type_set_masks_(type_set_masks(trace, cluster)),
      type_geometry_(type_geometries(cluster)),
      mig_start_(trace.jobs.size(), -1),
      nodes_(shared_nodes(cluster, cpu_counted_, memory_counted_)),
      meter_([&] {
        // A MIG job counts as what it takes of a SharedNode: a whole GPU (task_of).
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
  for (const JobSpec& job : trace.jobs) {
    if (job.mig_profile == 0 || profile_by_type_.contains(job.mig_profile)) continue;
    std::vector<int>& by_type = profile_by_type_[job.mig_profile];
    for (const MigGeometry* geometry : type_geometry_)
      by_type.push_back(geometry == nullptr
                            ? kNoMigProfile
                            : geometry->profile_index(trace.strings.str(job.mig_profile)));
  }
  layouts_.resize(cluster.node_count());
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    if (type_geometry_[cluster.node(n).type] != nullptr)
      layouts_[n].resize(static_cast<std::size_t>(cluster.node(n).gpus));
    placer_.set_usable(n, cluster.node_state(n) == NodeState::kOn);
    refresh_fragmentation(n);
  }
  synced_node_version_ = cluster.node_state_version();
}

int GpuSharingState::profile_on(JobIndex job, NodeIndex node) const {
  const StringId profile = trace_.jobs[job].mig_profile;
  if (profile == 0 || layouts_[node].empty()) return kNoMigProfile;
  return profile_by_type_.at(profile)[static_cast<std::size_t>(nodes_[node].gpu_type)];
}

bool GpuSharingState::open_to_mig(NodeIndex node, int gpu) const {
  const auto g = static_cast<std::size_t>(gpu);
  return nodes_[node].gpu_milli_free[g] == kMilliPerGpu || layouts_[node][g].any_busy();
}

int GpuSharingState::gpu_used_milli(NodeIndex node, int gpu) const {
  const auto g = static_cast<std::size_t>(gpu);
  if (!layouts_[node].empty() && layouts_[node][g].any_busy())
    return 125 * std::popcount(layouts_[node][g].busy_slots(
                     *type_geometry_[static_cast<std::size_t>(nodes_[node].gpu_type)]));
  return kMilliPerGpu - nodes_[node].gpu_milli_free[g];
}

int GpuSharingState::share_milli(JobIndex job, NodeIndex node) const {
  const JobSpec& spec = trace_.jobs[job];
  if (spec.mig_profile == 0) return spec.gpu_milli > 0 ? spec.gpu_milli : kMilliPerGpu;
  const MigGeometry& geometry = *type_geometry_[static_cast<std::size_t>(nodes_[node].gpu_type)];
  return mig_instance_milli(geometry.profiles[static_cast<std::size_t>(profile_on(job, node))]);
}

SharedTask GpuSharingState::host_task(JobIndex job) const {
  SharedTask task = task_of(job);
  task.gpus = 0;
  task.gpu_milli = 0;
  return task;
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
  if (spec.gpu_type_set != 0) task.gpu_type_mask = type_set_masks_[spec.gpu_type_set];
  return task;
}

SharedTask GpuSharingState::task_on_node(JobIndex job, const NodeAllocation& allocation) const {
  SharedTask task = task_of(job);
  if (trace_.jobs[job].uses_sharing()) return task;
  task.gpus = allocation.gpu_count();
  return task;
}

bool GpuSharingState::fits_some_node(JobIndex job) const {
  const JobSpec& spec = trace_.jobs[job];
  if (job_types_[job] == kUnknownGpuType) return false;
  if (spec.gpu_type_set != 0 && type_set_masks_[spec.gpu_type_set] == 0) return false;
  SharedTask task = task_of(job);
  for (NodeIndex n = 0; n < nodes_.size(); ++n) {
    const SharedNode& node = nodes_[n];
    if (!type_accepted(node, task)) continue;
    if (spec.mig_profile != 0 && profile_on(job, n) == kNoMigProfile) continue;
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
  return spec.shares_a_gpu() && snapshot_.partly_used_gpus > 0;
}

std::optional<Placement> GpuSharingState::choose(JobIndex job, const Cluster& cluster) {
  SCHEDLAB_ASSERT(trace_.jobs[job].uses_sharing(), "the shared placement places sharing jobs");
  sync_nodes(cluster);
  if (trace_.jobs[job].mig_profile != 0) return choose_mig(job);
  const SharedTask task = task_of(job);
  if (trace_.jobs[job].gpu_type_set != 0 && task.gpu_type_mask == 0) return std::nullopt;
  const auto chosen = placer_.choose(task);
  if (!chosen) return std::nullopt;
  return Placement{{static_cast<NodeIndex>(chosen->node), gpu_mask(chosen->gpus)}};
}

std::optional<Placement> GpuSharingState::choose_mig(JobIndex job) {
  const SharedTask task = task_of(job);
  // Smallest (layout change, - busy slots after placing) wins; the scan order breaks ties.
  std::optional<std::pair<int, int>> best_key;
  Placement best;
  for (NodeIndex n = 0; n < nodes_.size(); ++n) {
    const int profile = profile_on(job, n);
    if (profile == kNoMigProfile || !placer_.usable(n)) continue;
    const SharedNode& node = nodes_[n];
    if (!type_accepted(node, task) || node.cpu_milli_free < task.cpu_milli ||
        node.memory_mib_free < task.memory_mib)
      continue;
    const MigGeometry& geometry = *type_geometry_[static_cast<std::size_t>(node.gpu_type)];
    const int slots = geometry.profiles[static_cast<std::size_t>(profile)].slots;
    for (int g = 0; g < node.gpu_count(); ++g) {
      if (!open_to_mig(n, g)) continue;
      const MigLayout& layout = layouts_[n][static_cast<std::size_t>(g)];
      const auto spot = mig_spot(geometry, layout, profile);
      if (!spot) continue;
      const std::pair<int, int> key{spot->reconfigure ? 1 : 0,
                                    -(std::popcount(layout.busy_slots(geometry)) + slots)};
      if (!best_key || key < *best_key) {
        best_key = key;
        best = Placement{{n, GpuMask{1} << g}};
      }
    }
  }
  if (!best_key) return std::nullopt;
  return best;
}

std::string GpuSharingState::check_mig(JobIndex job, const NodeAllocation& a) const {
  const int profile = profile_on(job, a.node);
  if (profile == kNoMigProfile)
    return fmt::format("node {} has no MIG profile '{}'", a.node,
                       trace_.strings.str(trace_.jobs[job].mig_profile));
  const int g = std::countr_zero(a.gpus);
  if (!open_to_mig(a.node, g))
    return fmt::format("GPU {} of node {} runs jobs outside MIG", g, a.node);
  const MigGeometry& geometry = *type_geometry_[static_cast<std::size_t>(nodes_[a.node].gpu_type)];
  if (!mig_spot(geometry, layouts_[a.node][static_cast<std::size_t>(g)], profile))
    return fmt::format("GPU {} of node {} has no room for a {} instance", g, a.node,
                       geometry.profiles[static_cast<std::size_t>(profile)].name);
  return "";
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
    if (!type_accepted(node, task))
      return fmt::format("node {} is not of a GPU type the job accepts", a.node);
    if (node.cpu_milli_free < task.cpu_milli || node.memory_mib_free < task.memory_mib)
      return fmt::format("node {} has {} CPU milli and {} MiB left, the job needs {} and {}",
                         a.node, node.cpu_milli_free, node.memory_mib_free, task.cpu_milli,
                         task.memory_mib);
    if (spec.mig_profile != 0) {
      if (std::string why = check_mig(job, a); !why.empty()) return why;
      continue;
    }
    for (GpuMask m = a.gpus; m != 0; m &= m - 1) {
      const int g = std::countr_zero(m);
      if (node.gpu_milli_free[static_cast<std::size_t>(g)] < task.gpu_milli)
        return fmt::format("GPU {} of node {} has {} milli left, the job needs {}", g, a.node,
                           node.gpu_milli_free[static_cast<std::size_t>(g)], task.gpu_milli);
    }
  }
  return "";
}

void GpuSharingState::note_used_before(NodeIndex node, GpuMask gpus) {
  used_before_.clear();
  for (GpuMask m = gpus; m != 0; m &= m - 1)
    used_before_.push_back(gpu_used_milli(node, std::countr_zero(m)));
}

GpuMask GpuSharingState::account_change(NodeIndex node, GpuMask gpus) {
  GpuMask idleness_changed = 0;
  std::size_t i = 0;
  for (GpuMask m = gpus; m != 0; m &= m - 1, ++i) {
    const int g = std::countr_zero(m);
    const int before = used_before_[i], after = gpu_used_milli(node, g);
    snapshot_.allocated_gpu_milli += after - before;
    snapshot_.partly_used_gpus += (partly_used(after) ? 1 : 0) - (partly_used(before) ? 1 : 0);
    if ((before == 0) != (after == 0)) idleness_changed |= GpuMask{1} << g;
  }
  refresh_fragmentation(node);
  return idleness_changed;
}

Placement GpuSharingState::allocate(JobIndex job, const Placement& placement) {
  last_reconfigured_ = false;
  const bool mig = trace_.jobs[job].mig_profile != 0;
  Placement was_idle;
  for (const NodeAllocation& a : placement) {
    note_used_before(a.node, a.gpus);
    if (mig) {
      const int g = std::countr_zero(a.gpus);
      MigLayout& layout = layouts_[a.node][static_cast<std::size_t>(g)];
      // The first instance takes the whole GPU from the SharedNode; later ones CPU and memory.
      if (layout.any_busy())
        placer_.commit(a.node, host_task(job), {});
      else
        placer_.commit(a.node, task_of(job), {g});
      const MigSpot spot =
          mig_take(*type_geometry_[static_cast<std::size_t>(nodes_[a.node].gpu_type)], layout,
                   profile_on(job, a.node));
      mig_start_[job] = static_cast<std::int8_t>(spot.start);
      if (spot.reconfigure) {
        last_reconfigured_ = true;
        ++snapshot_.mig_reconfigurations;
      }
    } else {
      if (!layouts_[a.node].empty()) {
        for (GpuMask m = a.gpus; m != 0; m &= m - 1) {
          MigLayout& layout = layouts_[a.node][static_cast<std::size_t>(std::countr_zero(m))];
          if (layout.instances.empty()) continue;
          // Only an idle GPU is open to this job, so every instance is idle.
          layout.instances.clear();
          last_reconfigured_ = true;
          ++snapshot_.mig_reconfigurations;
        }
      }
      placer_.commit(a.node, task_on_node(job, a), gpu_list(a.gpus));
    }
    if (const GpuMask idle = account_change(a.node, a.gpus); idle != 0)
      was_idle.push_back({a.node, idle});
  }
  return was_idle;
}

Placement GpuSharingState::release(JobIndex job, const Placement& placement) {
  const bool mig = trace_.jobs[job].mig_profile != 0;
  Placement now_idle;
  for (const NodeAllocation& a : placement) {
    note_used_before(a.node, a.gpus);
    if (mig) {
      const int g = std::countr_zero(a.gpus);
      MigLayout& layout = layouts_[a.node][static_cast<std::size_t>(g)];
      mig_give_back(layout, profile_on(job, a.node), mig_start_[job]);
      mig_start_[job] = -1;
      if (layout.any_busy())
        placer_.release(a.node, host_task(job), {});
      else
        placer_.release(a.node, task_of(job), {g});
    } else {
      placer_.release(a.node, task_on_node(job, a), gpu_list(a.gpus));
    }
    if (const GpuMask idle = account_change(a.node, a.gpus); idle != 0)
      now_idle.push_back({a.node, idle});
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
      if (!layouts_[n].empty()) {
        const MigLayout& layout = layouts_[n][static_cast<std::size_t>(g)];
        const std::string where = fmt::format("node {} GPU {}", n, g);
        check_mig_layout(*type_geometry_[static_cast<std::size_t>(node.gpu_type)], layout, where);
        if (layout.any_busy() && node.gpu_milli_free[static_cast<std::size_t>(g)] != 0)
          throw InvariantError(
              fmt::format("{}: holds MIG instances and {} milli left to other jobs", where,
                          node.gpu_milli_free[static_cast<std::size_t>(g)]));
      }
      const int used = gpu_used_milli(n, g);
      allocated += used;
      if (used == 0)
        idle |= GpuMask{1} << g;
      else if (partly_used(used))
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
