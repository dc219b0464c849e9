// The modeled cluster: GPU types, node groups, nodes and which GPUs are free.
//
// Contract: the engine is the only writer (allocate/release); policies and placement read.
// Free GPUs are indexed per node group by free count, so best-fit and whole-node queries do
// not scan the nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedlab/index_set.hpp"
#include "schedlab/placement.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

struct GpuType {
  std::string name;
  double idle_power_w = 0.0;  // board power of an idle GPU
  double busy_power_w = 0.0;  // board power of a GPU running a job
};

// A run of identical nodes, as written in the cluster spec.
struct NodeGroupSpec {
  std::uint32_t count = 0;
  int gpus_per_node = 0;  // 1..64
  std::string gpu_type;   // name from the type table
  std::string rack;       // empty = "rack-<group index>"
};

struct ClusterSpec {
  std::vector<GpuType> gpu_types;
  std::vector<NodeGroupSpec> groups;
  std::string source;  // what it was parsed from, for messages and summary
};

// Built-in GPU types (board power in watts, idle/busy) and the default type name.
const std::vector<GpuType>& builtin_gpu_types();
inline constexpr const char* kDefaultGpuType = "A100";

// Parses "NODESxGPUS[:TYPE][,...]" or, if `text` names a readable file, cluster JSON.
// Throws ConfigError naming the spec (or file and JSON path) and the bad value.
ClusterSpec parse_cluster_spec(const std::string& text);
ClusterSpec parse_cluster_json_text(const std::string& json_text, const std::string& source);

struct Node {
  GpuTypeIndex type = 0;
  int gpus = 0;
  std::uint32_t group = 0;
  std::uint32_t rack = 0;
  std::uint64_t first_gpu_id = 0;  // global id of GPU 0 of this node
  GpuMask free_mask = 0;           // bits of free GPUs
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
  const std::string& source() const { return source_; }

  std::int64_t total_gpus() const { return total_gpus_; }
  std::int64_t free_gpus() const { return free_gpus_; }
  std::int64_t busy_gpus() const { return total_gpus_ - free_gpus_; }
  // GPUs of a type (kAnyGpuType = all), total and free.
  std::int64_t total_gpus_of(GpuTypeIndex type) const;
  std::int64_t free_gpus_of(GpuTypeIndex type) const;
  std::int64_t busy_gpus_of_type(GpuTypeIndex type) const {
    return total_gpus_of(type) - free_gpus_of(type);
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
  };
  const std::vector<Group>& groups() const { return groups_; }
  static bool type_matches(GpuTypeIndex wanted, GpuTypeIndex have) {
    return wanted == kAnyGpuType || wanted == have;
  }

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
};

}  // namespace schedlab
