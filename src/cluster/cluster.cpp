#include "schedlab/cluster.hpp"

#include <algorithm>
#include <bit>
#include <map>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/network_topology.hpp"
#include "schedlab/output.hpp"

namespace schedlab {

int Node::free_gpus() const {
  return std::popcount(free_mask);
}

GpuMask Node::all_mask() const {
  return gpus >= 64 ? ~GpuMask{0} : ((GpuMask{1} << gpus) - 1);
}

void check_cluster_size(const ClusterSpec& spec) {
  std::uint64_t node_total = 0;
  std::uint64_t gpu_total = 0;
  for (const auto& g : spec.groups) {
    node_total += g.count;
    gpu_total += static_cast<std::uint64_t>(g.count) * static_cast<std::uint64_t>(g.gpus_per_node);
  }
  if (node_total > kMaxClusterNodes || gpu_total > kMaxClusterGpus)
    throw ConfigError(
        fmt::format("{}: {} nodes with {} GPUs is more than supported ({} nodes, {} GPUs)",
                    spec.source, node_total, gpu_total, kMaxClusterNodes, kMaxClusterGpus));
}

Cluster::Cluster(const ClusterSpec& spec)
    : source_(spec.source),
      gpu_types_(spec.gpu_types),
      topology_spec_(spec.topology),
      comm_factors_(spec.comm_factors),
      pue_(spec.pue) {
  if (spec.groups.empty()) throw ConfigError(fmt::format("{}: cluster has no nodes", spec.source));
  total_by_type_.assign(gpu_types_.size(), 0);
  max_node_by_type_.assign(gpu_types_.size(), 0);
  std::map<std::string, std::uint32_t> rack_ids;
  std::uint64_t next_gpu = 0;
  check_cluster_size(spec);
  std::uint64_t node_total = 0;
  for (const auto& g : spec.groups) node_total += g.count;
  nodes_.reserve(node_total);
  for (std::size_t gi = 0; gi < spec.groups.size(); ++gi) {
    const auto& g = spec.groups[gi];
    const auto type = find_gpu_type(g.gpu_type);
    if (!type) throw ConfigError(fmt::format("{}: unknown GPU type '{}'", spec.source, g.gpu_type));
    if (g.gpus_per_node < 1 || g.gpus_per_node > kMaxGpusPerNode)
      throw ConfigError(
          fmt::format("{}: {} GPUs per node is outside 1..64", spec.source, g.gpus_per_node));
    if (!g.node_capacities.empty() && g.node_capacities.size() != g.count)
      throw ConfigError(fmt::format("{}: node group {} lists {} node capacities for {} nodes",
                                    spec.source, gi, g.node_capacities.size(), g.count));
    const std::string rack_base = g.rack.empty() ? fmt::format("rack-{}", gi) : g.rack;
    // A group's nodes go to one rack, or to racks of nodes_per_rack nodes ("<rack>-<k>").
    auto rack_id = [&](const std::string& rack_name) {
      auto [it, inserted] =
          rack_ids.try_emplace(rack_name, static_cast<std::uint32_t>(rack_names_.size()));
      if (inserted) {
        rack_names_.push_back(rack_name);
        pod_of_rack_.push_back(g.pod);
      } else if (pod_of_rack_[it->second] != g.pod) {
        throw ConfigError(fmt::format("{}: rack '{}' is placed in pod '{}' and in pod '{}'",
                                      spec.source, rack_name, pod_of_rack_[it->second], g.pod));
      }
      return it->second;
    };
    const std::uint32_t single_rack = g.nodes_per_rack == 0 ? rack_id(rack_base) : 0;
    Group group;
    group.first_node = static_cast<NodeIndex>(nodes_.size());
    group.count = g.count;
    group.gpus_per_node = g.gpus_per_node;
    group.type = *type;
    group.nodes_off = IndexSet(g.count);
    group.in_state[static_cast<int>(NodeState::kOn)] = g.count;
    group.nvlink_domain_gpus = g.nvlink_domain_gpus > 0
                                   ? std::min(g.nvlink_domain_gpus, g.gpus_per_node)
                                   : g.gpus_per_node;
    {
      // Node power: the group's own figures, else its GPU type's, else the default type's.
      const GpuType& gt = gpu_types_[*type];
      const GpuType* fallback = &gt;
      for (const auto& t : builtin_gpu_types())
        if (t.name == kDefaultGpuType) fallback = &t;
      const double type_base_w =
          gt.node_base_power_w >= 0 ? gt.node_base_power_w : fallback->node_base_power_w;
      const double type_off_w =
          gt.node_off_power_w >= 0 ? gt.node_off_power_w : fallback->node_off_power_w;
      // Type figures describe an 8-GPU node; other sizes scale the base linearly.
      group.base_power_w =
          g.base_power_w >= 0 ? g.base_power_w : type_base_w * g.gpus_per_node / 8.0;
      group.off_power_w = g.off_power_w >= 0 ? g.off_power_w : type_off_w;
    }
    group.uplink_gbps = g.uplink_gbps > 0 ? g.uplink_gbps : 0;
    group.nodes_by_free.reserve(static_cast<std::size_t>(g.gpus_per_node) + 1);
    for (int k = 0; k <= g.gpus_per_node; ++k) group.nodes_by_free.emplace_back(g.count);
    for (std::uint32_t i = 0; i < g.count; ++i) {
      Node node;
      node.type = *type;
      node.gpus = g.gpus_per_node;
      node.group = static_cast<std::uint32_t>(gi);
      node.rack = g.nodes_per_rack == 0
                      ? single_rack
                      : rack_id(fmt::format("{}-{}", rack_base, i / g.nodes_per_rack));
      node.first_gpu_id = next_gpu;
      node.free_mask = node.all_mask();
      node.capacity = g.node_capacities.empty() ? g.capacity : g.node_capacities[i];
      next_gpu += static_cast<std::uint64_t>(g.gpus_per_node);
      nodes_.push_back(node);
      group.nodes_by_free[static_cast<std::size_t>(g.gpus_per_node)].insert(i);
    }
    total_by_type_[*type] += static_cast<std::int64_t>(g.count) * g.gpus_per_node;
    max_node_by_type_[*type] = std::max(max_node_by_type_[*type], g.gpus_per_node);
    max_node_gpus_ = std::max(max_node_gpus_, g.gpus_per_node);
    groups_.push_back(std::move(group));
  }
  // Rack histograms: one slot per GPU type present in the cluster plus one for any type, each
  // of max_node_gpus_ + 1 levels.
  hist_slot_of_type_.assign(gpu_types_.size(), kNoHistSlot);
  for (const auto& group : groups_)
    if (hist_slot_of_type_[group.type] == kNoHistSlot)
      hist_slot_of_type_[group.type] = hist_slots_++;
  any_hist_slot_ = hist_slots_++;
  hist_levels_ = static_cast<std::size_t>(max_node_gpus_) + 1;
  rack_nodes_.assign(rack_names_.size(), {});
  rack_free_hist_.assign(rack_names_.size() * hist_slots_ * hist_levels_, 0);
  for (NodeIndex i = 0; i < nodes_.size(); ++i) {
    rack_nodes_[nodes_[i].rack].push_back(i);
    ++rack_free_hist_[hist_slot(i, hist_slot_of_type_[nodes_[i].type], nodes_[i].gpus)];
    ++rack_free_hist_[hist_slot(i, any_hist_slot_, nodes_[i].gpus)];
  }
  std::map<std::string, std::uint32_t> pod_ids;
  for (const auto& pod : pod_of_rack_) {
    if (pod.empty()) {
      rack_pod_index_.push_back(kNoPod);
      continue;
    }
    const auto [it, inserted] = pod_ids.try_emplace(pod, pod_count_);
    if (inserted) ++pod_count_;
    rack_pod_index_.push_back(it->second);
  }
  total_gpus_ = static_cast<std::int64_t>(next_gpu);
  free_gpus_ = total_gpus_;
  free_by_type_ = total_by_type_;
  unavailable_by_type_.assign(gpu_types_.size(), 0);
  node_state_.assign(nodes_.size(), NodeState::kOn);
  nodes_in_state_[static_cast<int>(NodeState::kOn)] = static_cast<std::uint32_t>(nodes_.size());
}

const char* node_state_name(NodeState state) {
  switch (state) {
    case NodeState::kOn: return "on";
    case NodeState::kOff: return "off";
    case NodeState::kBooting: return "booting";
    case NodeState::kDown: return "down";
  }
  return "on";
}

void Cluster::set_node_state(NodeIndex node, NodeState state) {
  SCHEDLAB_ASSERT(node < nodes_.size(), "node exists");
  apply_node_state(node, state);
  node_state_log_.push_back(node);
}

void Cluster::apply_node_state(NodeIndex node, NodeState state) {
  const NodeState old = node_state_[node];
  if (old == state) return;
  Node& n = nodes_[node];
  Group& group = groups_[n.group];
  const std::uint32_t local = node - group.first_node;
  const int gpus = n.gpus;
  if (old == NodeState::kOn) {
    // Leaving service: every GPU must be free; the node drops to the zero-free bucket.
    SCHEDLAB_ASSERT(n.free_mask == n.all_mask(),
                    "a node leaves service only with all its GPUs free");
    n.free_mask = 0;
    move_in_index(node, gpus, 0);
    free_gpus_ -= gpus;
    free_by_type_[n.type] -= gpus;
    unavailable_gpus_ += gpus;
    unavailable_by_type_[n.type] += gpus;
  } else if (state == NodeState::kOn) {
    SCHEDLAB_ASSERT(n.free_mask == 0, "an unavailable node holds no GPUs");
    n.free_mask = n.all_mask();
    move_in_index(node, 0, gpus);
    free_gpus_ += gpus;
    free_by_type_[n.type] += gpus;
    unavailable_gpus_ -= gpus;
    unavailable_by_type_[n.type] -= gpus;
  }
  if (old == NodeState::kOff) group.nodes_off.erase(local);
  if (state == NodeState::kOff) group.nodes_off.insert(local);
  --group.in_state[static_cast<int>(old)];
  ++group.in_state[static_cast<int>(state)];
  --nodes_in_state_[static_cast<int>(old)];
  ++nodes_in_state_[static_cast<int>(state)];
  node_state_[node] = state;
}

const Topology& Cluster::topology() const {
  if (!topology_) topology_ = std::make_shared<const Topology>(*this);
  return *topology_;
}

std::optional<NodeIndex> Cluster::lowest_off_node(GpuTypeIndex type) const {
  std::optional<NodeIndex> best;
  for (const auto& group : groups_) {
    if (!type_matches(type, group.type) || group.nodes_off.empty()) continue;
    const NodeIndex node = group.first_node + group.nodes_off.first();
    if (!best || node < *best) best = node;
  }
  return best;
}

void Cluster::sync_node_states(const Cluster& source) {
  SCHEDLAB_ASSERT(source.nodes_.size() == nodes_.size() &&
                      source.node_state_log_.size() >= node_state_log_.size(),
                  "node states are synced from the cluster this one was copied from");
  for (std::size_t i = node_state_log_.size(); i < source.node_state_log_.size(); ++i) {
    const NodeIndex node = source.node_state_log_[i];
    apply_node_state(node, source.node_state_[node]);
    node_state_log_.push_back(node);
  }
}

const char* link_level_name(LinkLevel level) {
  switch (level) {
    case LinkLevel::kNvlink: return "nvlink";
    case LinkLevel::kIntraNode: return "intra_node";
    case LinkLevel::kIntraRack: return "intra_rack";
    case LinkLevel::kCrossRack: return "cross_rack";
    case LinkLevel::kCrossPod: return "cross_pod";
  }
  return "nvlink";
}

std::optional<GpuTypeIndex> Cluster::find_gpu_type(const std::string& name) const {
  for (std::size_t i = 0; i < gpu_types_.size(); ++i)
    if (gpu_types_[i].name == name) return static_cast<GpuTypeIndex>(i);
  return std::nullopt;
}

std::int64_t Cluster::total_gpus_of(GpuTypeIndex type) const {
  return type == kAnyGpuType ? total_gpus_ : total_by_type_[type];
}

std::int64_t Cluster::free_gpus_of(GpuTypeIndex type) const {
  return type == kAnyGpuType ? free_gpus_ : free_by_type_[type];
}

int Cluster::max_node_gpus(GpuTypeIndex type) const {
  return type == kAnyGpuType ? max_node_gpus_ : max_node_by_type_[type];
}

void Cluster::move_in_index(NodeIndex node, int old_free, int new_free) {
  auto& group = groups_[nodes_[node].group];
  const std::uint32_t local = node - group.first_node;
  group.nodes_by_free[static_cast<std::size_t>(old_free)].erase(local);
  group.nodes_by_free[static_cast<std::size_t>(new_free)].insert(local);
  move_in_rack_histograms(node, old_free, new_free);
}

bool Cluster::can_allocate(const Placement& placement) const {
  NodeIndex previous = 0;
  for (std::size_t i = 0; i < placement.size(); ++i) {
    const auto& a = placement[i];
    if (a.node >= nodes_.size() || a.gpus == 0) return false;
    if (i > 0 && a.node <= previous) return false;
    previous = a.node;
    const Node& n = nodes_[a.node];
    if ((a.gpus & ~n.all_mask()) != 0) return false;
    if ((a.gpus & ~n.free_mask) != 0) return false;
  }
  return !placement.empty();
}

void Cluster::allocate(const Placement& placement) {
  SCHEDLAB_ASSERT(can_allocate(placement), "allocated GPUs are free and exist");
  for (const auto& a : placement) {
    Node& n = nodes_[a.node];
    const int before = n.free_gpus();
    n.free_mask &= ~a.gpus;
    const int taken = a.gpu_count();
    move_in_index(a.node, before, before - taken);
    free_gpus_ -= taken;
    free_by_type_[n.type] -= taken;
  }
}

void Cluster::release(const Placement& placement) {
  for (const auto& a : placement) {
    SCHEDLAB_ASSERT(a.node < nodes_.size(), "released node exists");
    Node& n = nodes_[a.node];
    SCHEDLAB_ASSERT((a.gpus & n.free_mask) == 0 && (a.gpus & ~n.all_mask()) == 0,
                    "released GPUs were held");
    const int before = n.free_gpus();
    n.free_mask |= a.gpus;
    const int given = a.gpu_count();
    move_in_index(a.node, before, before + given);
    free_gpus_ += given;
    free_by_type_[n.type] += given;
  }
  SCHEDLAB_ASSERT(free_gpus_ + unavailable_gpus_ <= total_gpus_, "free GPUs never exceed capacity");
}

std::string Cluster::gpu_id_ranges(const Placement& placement) const {
  std::string out;
  append_gpu_id_ranges(out, placement);
  return out;
}

void Cluster::append_gpu_id_ranges(std::string& out, const Placement& placement) const {
  std::uint64_t run_start = 0;
  std::uint64_t run_end = 0;  // exclusive
  bool open = false;
  bool first = true;
  auto flush = [&] {
    if (!open) return;
    if (!first) out += ' ';
    first = false;
    append_int(out, static_cast<std::int64_t>(run_start));
    if (run_end - run_start > 1) {
      out += '-';
      append_int(out, static_cast<std::int64_t>(run_end - 1));
    }
  };
  for (const auto& a : placement) {
    const Node& n = nodes_[a.node];
    GpuMask mask = a.gpus;
    while (mask != 0) {
      const auto bit = static_cast<std::uint64_t>(std::countr_zero(mask));
      mask &= mask - 1;
      const std::uint64_t id = n.first_gpu_id + bit;
      if (open && id == run_end) {
        ++run_end;
      } else {
        flush();
        run_start = id;
        run_end = id + 1;
        open = true;
      }
    }
  }
  flush();
}

}  // namespace schedlab
