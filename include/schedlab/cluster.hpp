// The modeled cluster: GPU types, node groups, nodes and which GPUs are free.
//
// Contract: the engine is the only writer (allocate/release); policies and placement read.
// Free GPUs are indexed per node group by free count, so best-fit and whole-node queries do
// not scan the nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedlab/index_set.hpp"
#include "schedlab/placement.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

inline constexpr double kUnsetNumber = -1.0;
// Largest cluster modeled: far above any real one, and it keeps memory to a few hundred MB.
inline constexpr std::uint64_t kMaxClusterNodes = 1'000'000;
inline constexpr std::uint64_t kMaxClusterGpus = 10'000'000;

struct GpuType {
  std::string name;
  double idle_power_w = 0.0;  // board power of an idle GPU
  double busy_power_w = 0.0;  // board power of a GPU running a job
  // Relative training speed (reference = 1.0 = A100), used by --speed-model gpu|full.
  double speed = 1.0;
  // Power of the rest of an 8-GPU node of this type (CPUs, NICs, switches, fans) while it is on,
  // and of a powered-off node; used with --node-power. kUnsetNumber = the default type's figures.
  // Nodes with another GPU count scale the base linearly (docs/cluster.md).
  double node_base_power_w = kUnsetNumber;
  double node_off_power_w = kUnsetNumber;
  // MIG geometry (mig.hpp, e.g. "a100-80gb"): jobs asking for a MIG profile may run in slices of
  // this type's GPUs in runs that share GPUs. Empty = no MIG.
  std::string mig{};
};

// CPU (thousandths of a core) and memory of one node; 0 = not modeled (docs/gpu-sharing.md).
struct NodeCapacity {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  bool operator==(const NodeCapacity&) const = default;
};

// A run of identical nodes, as written in the cluster spec.
struct NodeGroupSpec {
  std::uint32_t count = 0;
  int gpus_per_node = 0;  // 1..64
  std::string gpu_type;   // name from the type table
  std::string rack;       // empty = "rack-<group index>"
  // Topology (docs/cluster.md). nodes_per_rack > 0 splits the group into racks of that many
  // nodes named "<rack>-<k>"; pod names the pod its racks belong to (empty: under the spine).
  std::uint32_t nodes_per_rack = 0;
  std::string pod{};
  int nvlink_domain_gpus = 0;          // GPUs per NVLink domain; 0 = the whole node
  double uplink_gbps = kUnsetNumber;   // node-to-rack link; unset = topology default
  double base_power_w = kUnsetNumber;  // per node; unset = from the GPU type
  double off_power_w = kUnsetNumber;   // per node; unset = from the GPU type
  NodeCapacity capacity{};             // CPU and memory of each node (0 = not modeled)
  // Inventories whose nodes differ only in CPU and memory: one entry per node of the group, in
  // order, overriding `capacity`; empty = every node has `capacity`.
  std::vector<NodeCapacity> node_capacities{};
};

// Link bandwidths per level of the hierarchy, Gbit/s (defaults and sources: docs/cluster.md).
struct TopologySpec {
  bool given = false;            // the cluster JSON has a "topology" object
  double nvlink_gbps = 4800;     // between GPUs of one NVLink domain
  double intra_node_gbps = 256;  // between NVLink domains of one node (PCIe)
  double node_uplink_gbps = 1600;
  double rack_uplink_gbps = 12800;
  double pod_uplink_gbps = 51200;
};

// Link levels a placement can cross, fastest first.
enum class LinkLevel : std::uint8_t { kNvlink, kIntraNode, kIntraRack, kCrossRack, kCrossPod };
inline constexpr int kLinkLevelCount = 5;
const char* link_level_name(LinkLevel level);

// Slowdown of a job's progress by the slowest level its placement crosses and its `comm`
// sensitivity: [level][CommSensitivity]. >= 1; the NVLink row is all 1.
struct CommFactors {
  double factor[kLinkLevelCount][4] = {};
  CommFactors();  // the documented defaults (docs/cluster.md)
};

struct ClusterSpec {
  std::vector<GpuType> gpu_types;
  std::vector<NodeGroupSpec> groups;
  std::string source;  // what it was parsed from, for messages and summary
  TopologySpec topology{};
  CommFactors comm_factors{};
  double pue = 1.0;  // facility power / IT power
};

// Built-in GPU types (board power in watts, idle/busy) and the default type name.
const std::vector<GpuType>& builtin_gpu_types();
inline constexpr const char* kDefaultGpuType = "A100";

// Parses "NODESxGPUS[:TYPE][,...]" or, if `text` names a readable file, cluster JSON.
// Throws ConfigError naming the spec (or file and JSON path) and the bad value.
ClusterSpec parse_cluster_spec(const std::string& text);
ClusterSpec parse_cluster_json_text(const std::string& json_text, const std::string& source);
// Throws ConfigError "SOURCE: N nodes with G GPUs is more than supported (...)" above
// kMaxClusterNodes nodes or kMaxClusterGpus GPUs (parse_cluster_spec and Cluster check it).
void check_cluster_size(const ClusterSpec& spec);

// Power and availability state of a node. Only kOn nodes offer GPUs to placement.
enum class NodeState : std::uint8_t {
  kOn,       // powered and healthy
  kOff,      // powered off to save energy (--power-off-idle); wakes in --boot-time
  kBooting,  // powering on: draws power, runs nothing
  kDown,     // failed, under repair
};
inline constexpr int kNodeStateCount = 4;
const char* node_state_name(NodeState state);

class Topology;

struct Node {
  GpuTypeIndex type = 0;
  int gpus = 0;
  std::uint32_t group = 0;
  std::uint32_t rack = 0;
  std::uint64_t first_gpu_id = 0;  // global id of GPU 0 of this node
  GpuMask free_mask = 0;           // bits of free GPUs
  NodeCapacity capacity;           // CPU and memory (0 = not modeled)
  int free_gpus() const;
  GpuMask all_mask() const;
};

class Cluster {
 public:
  explicit Cluster(const ClusterSpec& spec);

  const std::vector<GpuType>& gpu_types() const { return gpu_types_; }
  std::optional<GpuTypeIndex> find_gpu_type(const std::string& name) const;
  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(NodeIndex index) const { return nodes_[index]; }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t rack_count() const { return rack_names_.size(); }
  const std::string& rack_name(std::uint32_t rack) const { return rack_names_[rack]; }
  // Pods numbered 0..pod_count()-1 in first-seen order; kNoPod for a rack under the spine.
  static constexpr std::uint32_t kNoPod = 0xFFFFFFFFu;
  std::uint32_t pod_count() const { return pod_count_; }
  std::uint32_t pod_of_rack(std::uint32_t rack) const { return rack_pod_index_[rack]; }
  // Nodes of a rack, ascending.
  const std::vector<NodeIndex>& rack_nodes(std::uint32_t rack) const { return rack_nodes_[rack]; }
  // Nodes of `rack` whose GPUs are of `type` (kAnyGpuType: of any type) by free count: [f] for
  // f = 0..max_node_gpus(kAnyGpuType); nodes not on count as 0 free; nullptr for a type the
  // cluster has no nodes of. Kept as GPUs are allocated and released, so rack-level placement
  // queries need not scan nodes.
  const std::uint32_t* rack_free_histogram(std::uint32_t rack, GpuTypeIndex type) const {
    const std::size_t slot = type == kAnyGpuType ? any_hist_slot_ : hist_slot_of_type_[type];
    if (slot == kNoHistSlot) return nullptr;
    return &rack_free_hist_[(static_cast<std::size_t>(rack) * hist_slots_ + slot) * hist_levels_];
  }
  const std::string& source() const { return source_; }

  std::int64_t total_gpus() const { return total_gpus_; }
  // Free = on a node that is on and held by no job (what placement may use).
  std::int64_t free_gpus() const { return free_gpus_; }
  std::int64_t busy_gpus() const { return total_gpus_ - free_gpus_ - unavailable_gpus_; }
  // GPUs on nodes that are off, booting or down.
  std::int64_t unavailable_gpus() const { return unavailable_gpus_; }
  // GPUs of a type (kAnyGpuType = all), total and free.
  std::int64_t total_gpus_of(GpuTypeIndex type) const;
  std::int64_t free_gpus_of(GpuTypeIndex type) const;
  std::int64_t unavailable_gpus_of(GpuTypeIndex type) const {
    return type == kAnyGpuType ? unavailable_gpus_ : unavailable_by_type_[type];
  }
  std::int64_t busy_gpus_of_type(GpuTypeIndex type) const {
    return total_gpus_of(type) - free_gpus_of(type) - unavailable_gpus_of(type);
  }
  // Largest node of a type (kAnyGpuType = any), in GPUs.
  int max_node_gpus(GpuTypeIndex type) const;

  // Node groups, for placement: group g covers nodes [first_node, first_node + count).
  struct Group {
    NodeIndex first_node = 0;
    std::uint32_t count = 0;
    int gpus_per_node = 0;
    GpuTypeIndex type = 0;
    std::vector<IndexSet> nodes_by_free;  // [k] = group-local indexes of nodes with k free GPUs
    // Nodes that are not on sit in nodes_by_free[0] (no free GPUs) and here, by state.
    IndexSet nodes_off;
    std::uint32_t in_state[kNodeStateCount] = {};  // node count per NodeState
    int nvlink_domain_gpus = 0;                    // GPUs per NVLink domain (<= gpus_per_node)
    double base_power_w = 0;                       // per node, when --node-power
    double off_power_w = 0;                        // per node, when --node-power
    double uplink_gbps = 0;                        // node-to-rack link; 0 = topology default
  };
  const std::vector<Group>& groups() const { return groups_; }
  static bool type_matches(GpuTypeIndex wanted, GpuTypeIndex have) {
    return wanted == kAnyGpuType || wanted == have;
  }

  // --- node states (failures, power saving) ---
  NodeState node_state(NodeIndex node) const { return node_state_[node]; }
  std::uint32_t nodes_in_state(NodeState state) const {
    return nodes_in_state_[static_cast<int>(state)];
  }
  // Engine only. A node leaves kOn only with all its GPUs free; while not on, its GPUs are
  // neither free nor busy (unavailable), and it sits in its group's nodes_by_free[0].
  void set_node_state(NodeIndex node, NodeState state);
  // Lowest-index node that is off, of `type` (kAnyGpuType = any), or nullopt.
  std::optional<NodeIndex> lowest_off_node(GpuTypeIndex type) const;
  // Brings this copy's node states to those of `source`, a cluster this one was copied from
  // (or copied from the same cluster): a policy's private copy calls it before reasoning, so
  // nodes that failed, powered off or came back since are seen. Cost: O(state changes since the
  // last sync); no-op when nothing changed. Every GPU of a node leaving kOn must be free here.
  void sync_node_states(const Cluster& source);
  // Number of node state changes so far (grows by one per set_node_state).
  std::uint64_t node_state_version() const { return node_state_log_.size(); }

  // --- topology and power parameters ---
  const TopologySpec& topology_spec() const { return topology_spec_; }
  const CommFactors& comm_factors() const { return comm_factors_; }
  double spec_pue() const { return pue_; }
  // The hierarchy as a Boost.Graph graph with precomputed distances; built at the first call.
  const Topology& topology() const;

  // Whether every GPU of the placement is free (and the placement well-formed).
  bool can_allocate(const Placement& placement) const;
  // Preconditions asserted: the GPUs are free / held.
  void allocate(const Placement& placement);
  void release(const Placement& placement);

  // Global GPU ids of a placement as Batsim interval text, e.g. "0-3 16-19".
  std::string gpu_id_ranges(const Placement& placement) const;
  void append_gpu_id_ranges(std::string& out, const Placement& placement) const;

 private:
  void move_in_index(NodeIndex node, int old_free, int new_free);
  // Index in rack_free_hist_ of (node's rack, histogram slot, free).
  std::size_t hist_slot(NodeIndex node, std::size_t slot, int free) const {
    return (static_cast<std::size_t>(nodes_[node].rack) * hist_slots_ + slot) * hist_levels_ +
           static_cast<std::size_t>(free);
  }
  void move_in_rack_histograms(NodeIndex node, int old_free, int new_free) {
    for (const std::size_t slot : {hist_slot_of_type_[nodes_[node].type], any_hist_slot_}) {
      --rack_free_hist_[hist_slot(node, slot, old_free)];
      ++rack_free_hist_[hist_slot(node, slot, new_free)];
    }
  }
  void apply_node_state(NodeIndex node, NodeState state);

  std::string source_;
  std::vector<GpuType> gpu_types_;
  std::vector<Node> nodes_;
  std::vector<Group> groups_;
  std::vector<std::string> rack_names_;
  std::vector<std::int64_t> total_by_type_;
  std::vector<std::int64_t> free_by_type_;
  std::vector<int> max_node_by_type_;
  int max_node_gpus_ = 0;
  std::int64_t total_gpus_ = 0;
  std::int64_t free_gpus_ = 0;
  std::int64_t unavailable_gpus_ = 0;
  std::vector<std::int64_t> unavailable_by_type_;
  std::vector<NodeState> node_state_;
  std::uint32_t nodes_in_state_[kNodeStateCount] = {};
  std::vector<NodeIndex> node_state_log_;      // node of each state change, in order
  std::vector<std::string> pod_of_rack_;       // "" = directly under the spine
  std::vector<std::uint32_t> rack_pod_index_;  // pod number of each rack, or kNoPod
  std::vector<std::vector<NodeIndex>> rack_nodes_;
  std::vector<std::uint32_t> rack_free_hist_;  // see rack_free_histogram
  static constexpr std::size_t kNoHistSlot = ~std::size_t{0};
  std::vector<std::size_t> hist_slot_of_type_;  // per GPU type; kNoHistSlot = no nodes of it
  std::size_t any_hist_slot_ = 0;
  std::size_t hist_slots_ = 0;
  std::size_t hist_levels_ = 0;
  std::uint32_t pod_count_ = 0;
  TopologySpec topology_spec_;
  CommFactors comm_factors_;
  double pue_ = 1.0;
  mutable std::shared_ptr<const Topology> topology_;  // built on first use, shared by copies
};

}  // namespace schedlab
