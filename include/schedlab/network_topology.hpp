// The cluster's network hierarchy: GPUs in NVLink domains inside nodes, nodes under rack
// switches, racks under pod switches (optional), pods under the spine.
//
// Built once from a Cluster into a Boost.Graph graph (vertices: spine, pods, racks, nodes,
// NVLink domains; edges carry link bandwidths). Distances are precomputed so that queries are
// O(1) and callers never see Boost types: between "aggregation units" (a pod, or a rack that
// hangs directly under the spine) a hop and bottleneck-bandwidth matrix is computed with a
// breadth-first search over the switch subgraph; node-level answers combine that matrix with
// per-rack and per-node uplinks. Memory: O(nodes + units^2), never a node-by-node matrix.
// Definitions and defaults: docs/cluster.md.
#pragma once

#include <cstdint>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/placement.hpp"

namespace schedlab {

class Topology {
 public:
  // Throws ConfigError when the hierarchy has more than kMaxUnits aggregation units.
  explicit Topology(const Cluster& cluster);

  static constexpr std::uint32_t kMaxUnits = 4096;
  static constexpr std::uint32_t kNoPod = 0xFFFFFFFFu;

  std::uint32_t rack_count() const { return static_cast<std::uint32_t>(rack_unit_.size()); }
  std::uint32_t pod_count() const { return pod_count_; }
  std::uint32_t unit_count() const { return unit_count_; }
  std::uint32_t rack_of(NodeIndex node) const { return node_rack_[node]; }
  // Pod of a rack, or kNoPod when the rack hangs directly under the spine.
  std::uint32_t pod_of_rack(std::uint32_t rack) const { return rack_pod_[rack]; }

  // Links between two nodes' network interfaces: 0 for the same node.
  int hops(NodeIndex a, NodeIndex b) const;
  // Smallest link bandwidth on the path between two nodes (Gbit/s); for the same node, the
  // NVLink bandwidth.
  double bottleneck_gbps(NodeIndex a, NodeIndex b) const;
  // The level at which traffic between two different nodes meets (kIntraRack and up), or
  // kNvlink for the same node.
  LinkLevel level(NodeIndex a, NodeIndex b) const;
  // Slowest level a placement crosses: kNvlink inside one NVLink domain, kIntraNode across
  // domains of one node, kIntraRack across nodes of one rack, kCrossRack across racks (of one
  // pod, or of no pod), kCrossPod across pods.
  LinkLevel placement_level(const Cluster& cluster, const Placement& placement) const;

  // Size of the Boost.Graph graph (for tests and diagnostics).
  std::size_t vertex_count() const { return vertex_count_; }
  std::size_t edge_count() const { return edge_count_; }

 private:
  std::uint32_t unit_index(std::uint32_t a, std::uint32_t b) const { return a * unit_count_ + b; }

  std::vector<std::uint32_t> node_rack_;
  std::vector<double> node_uplink_gbps_;     // node to its rack switch
  std::vector<std::uint32_t> rack_unit_;     // aggregation unit of each rack
  std::vector<std::uint32_t> rack_pod_;      // pod or kNoPod
  std::vector<double> rack_uplink_gbps_;     // rack switch to its pod switch or the spine
  std::vector<std::uint16_t> unit_hops_;     // [a * units + b]: links between unit switches
  std::vector<float> unit_bottleneck_gbps_;  // [a * units + b]
  std::uint32_t unit_count_ = 0;
  std::uint32_t pod_count_ = 0;
  double nvlink_gbps_ = 0;
  std::size_t vertex_count_ = 0;
  std::size_t edge_count_ = 0;
};

}  // namespace schedlab
