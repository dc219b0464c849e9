#include "schedlab/network_topology.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>

#include "schedlab/error.hpp"

namespace schedlab {
namespace {

enum class VertexKind : std::uint8_t { kSpine, kPod, kRack, kNode, kDomain };

struct VertexInfo {
  VertexKind kind = VertexKind::kSpine;
  std::uint32_t index = 0;  // pod, rack, node or domain number
};

struct EdgeInfo {
  double gbps = 0;
};

using Graph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo, EdgeInfo>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

// A vertex with its properties. (boost::add_vertex(properties, g) goes through named_graph's
// lookup, which GCC 12 flags as reading an uninitialized optional in sanitizer builds.)
Vertex add_vertex_with(Graph& graph, const VertexInfo& info) {
  const Vertex v = boost::add_vertex(graph);
  graph[v] = info;
  return v;
}

// Records, along the BFS tree from one source, the hop count and the smallest link bandwidth.
template <typename G>
class DistanceRecorder : public boost::default_bfs_visitor {
 public:
  DistanceRecorder(std::vector<std::uint16_t>& hops, std::vector<double>& bottleneck)
      : hops_(&hops), bottleneck_(&bottleneck) {}
  void tree_edge(typename boost::graph_traits<G>::edge_descriptor e, const G& g) const {
    const auto from = boost::source(e, g);
    const auto to = boost::target(e, g);
    (*hops_)[to] = static_cast<std::uint16_t>((*hops_)[from] + 1);
    (*bottleneck_)[to] = std::min((*bottleneck_)[from], g[e].gbps);
  }

 private:
  std::vector<std::uint16_t>* hops_;
  std::vector<double>* bottleneck_;
};

// Vertices of the unit-level switch graph: the spine, pod switches, and rack switches that hang
// directly under the spine.
struct UnitSwitches {
  const Graph* graph = nullptr;
  const std::vector<std::uint8_t>* is_unit_switch = nullptr;
  bool operator()(Vertex v) const { return (*is_unit_switch)[v] != 0; }
};

}  // namespace

Topology::Topology(const Cluster& cluster) {
  const TopologySpec& spec = cluster.topology_spec();
  nvlink_gbps_ = spec.nvlink_gbps;
  const std::size_t racks = cluster.rack_count();
  const std::size_t nodes = cluster.node_count();

  // Pods as the cluster numbers them (first-seen rack order).
  static_assert(kNoPod == Cluster::kNoPod, "one marker for racks under the spine");
  rack_pod_.resize(racks);
  for (std::uint32_t r = 0; r < racks; ++r) rack_pod_[r] = cluster.pod_of_rack(r);
  pod_count_ = cluster.pod_count();
  // Aggregation units: every pod, then every rack without a pod.
  rack_unit_.assign(racks, 0);
  unit_count_ = pod_count_;
  for (std::size_t r = 0; r < racks; ++r)
    rack_unit_[r] = rack_pod_[r] != kNoPod ? rack_pod_[r] : unit_count_++;
  if (unit_count_ > kMaxUnits)
    throw ConfigError(
        fmt::format("{}: {} racks outside pods are more than the topology model supports "
                    "({}); group racks into pods (node_groups[].pod)",
                    cluster.source(), unit_count_, kMaxUnits));

  // The graph: spine, pods, racks, nodes, NVLink domains.
  Graph graph;
  const Vertex spine = add_vertex_with(graph, VertexInfo{VertexKind::kSpine, 0});
  std::vector<Vertex> pod_vertex(pod_count_);
  for (std::uint32_t p = 0; p < pod_count_; ++p) {
    pod_vertex[p] = add_vertex_with(graph, VertexInfo{VertexKind::kPod, p});
    boost::add_edge(pod_vertex[p], spine, EdgeInfo{spec.pod_uplink_gbps}, graph);
  }
  std::vector<Vertex> rack_vertex(racks);
  rack_uplink_gbps_.assign(racks, spec.rack_uplink_gbps);
  for (std::size_t r = 0; r < racks; ++r) {
    rack_vertex[r] =
        add_vertex_with(graph, VertexInfo{VertexKind::kRack, static_cast<std::uint32_t>(r)});
    const Vertex up = rack_pod_[r] != kNoPod ? pod_vertex[rack_pod_[r]] : spine;
    boost::add_edge(rack_vertex[r], up, EdgeInfo{spec.rack_uplink_gbps}, graph);
  }
  node_rack_.resize(nodes);
  node_uplink_gbps_.resize(nodes);
  std::uint32_t domain = 0;
  for (NodeIndex n = 0; n < nodes; ++n) {
    const Node& node = cluster.node(n);
    const Cluster::Group& group = cluster.groups()[node.group];
    node_rack_[n] = node.rack;
    node_uplink_gbps_[n] = group.uplink_gbps > 0 ? group.uplink_gbps : spec.node_uplink_gbps;
    const Vertex v = add_vertex_with(graph, VertexInfo{VertexKind::kNode, n});
    boost::add_edge(v, rack_vertex[node.rack], EdgeInfo{node_uplink_gbps_[n]}, graph);
    const int domains = (node.gpus + group.nvlink_domain_gpus - 1) / group.nvlink_domain_gpus;
    for (int d = 0; d < domains; ++d) {
      const Vertex dv = add_vertex_with(graph, VertexInfo{VertexKind::kDomain, domain++});
      boost::add_edge(dv, v, EdgeInfo{domains > 1 ? spec.intra_node_gbps : spec.nvlink_gbps},
                      graph);
    }
  }
  vertex_count_ = boost::num_vertices(graph);
  edge_count_ = boost::num_edges(graph);

  // Unit-to-unit distances by BFS over the unit-level switch subgraph.
  std::vector<std::uint8_t> is_unit_switch(vertex_count_, 0);
  std::vector<Vertex> unit_vertex(unit_count_);
  is_unit_switch[spine] = 1;
  for (std::uint32_t p = 0; p < pod_count_; ++p) {
    is_unit_switch[pod_vertex[p]] = 1;
    unit_vertex[p] = pod_vertex[p];
  }
  for (std::size_t r = 0; r < racks; ++r) {
    if (rack_pod_[r] != kNoPod) continue;
    is_unit_switch[rack_vertex[r]] = 1;
    unit_vertex[rack_unit_[r]] = rack_vertex[r];
  }
  using Filtered = boost::filtered_graph<Graph, boost::keep_all, UnitSwitches>;
  const Filtered switches(graph, boost::keep_all(), UnitSwitches{&graph, &is_unit_switch});
  unit_hops_.assign(static_cast<std::size_t>(unit_count_) * unit_count_, 0);
  unit_bottleneck_gbps_.assign(static_cast<std::size_t>(unit_count_) * unit_count_, 0.0f);
  std::vector<std::uint16_t> hops(vertex_count_, 0);
  std::vector<double> bottleneck(vertex_count_, std::numeric_limits<double>::infinity());
  std::vector<boost::default_color_type> colors(vertex_count_);
  for (std::uint32_t a = 0; a < unit_count_; ++a) {
    std::fill(hops.begin(), hops.end(), std::numeric_limits<std::uint16_t>::max());
    std::fill(bottleneck.begin(), bottleneck.end(), std::numeric_limits<double>::infinity());
    hops[unit_vertex[a]] = 0;
    boost::breadth_first_search(switches, unit_vertex[a],
                                boost::visitor(DistanceRecorder<Filtered>(hops, bottleneck))
                                    .color_map(boost::make_iterator_property_map(
                                        colors.begin(), boost::get(boost::vertex_index, graph))));
    for (std::uint32_t b = 0; b < unit_count_; ++b) {
      const Vertex vb = unit_vertex[b];
      SCHEDLAB_ASSERT(hops[vb] != std::numeric_limits<std::uint16_t>::max(),
                      "every unit is reachable");
      unit_hops_[unit_index(a, b)] = hops[vb];
      unit_bottleneck_gbps_[unit_index(a, b)] = static_cast<float>(a == b ? 0.0 : bottleneck[vb]);
    }
  }
}

int Topology::hops(NodeIndex a, NodeIndex b) const {
  if (a == b) return 0;
  const std::uint32_t ra = node_rack_[a];
  const std::uint32_t rb = node_rack_[b];
  if (ra == rb) return 2;
  const std::uint32_t ua = rack_unit_[ra];
  const std::uint32_t ub = rack_unit_[rb];
  const int up_a = rack_pod_[ra] != kNoPod ? 2 : 1;
  const int up_b = rack_pod_[rb] != kNoPod ? 2 : 1;
  if (ua == ub) return 4;  // node, rack, pod, rack, node
  return up_a + unit_hops_[unit_index(ua, ub)] + up_b;
}

double Topology::bottleneck_gbps(NodeIndex a, NodeIndex b) const {
  if (a == b) return nvlink_gbps_;
  double bw = std::min(node_uplink_gbps_[a], node_uplink_gbps_[b]);
  const std::uint32_t ra = node_rack_[a];
  const std::uint32_t rb = node_rack_[b];
  if (ra == rb) return bw;
  const std::uint32_t ua = rack_unit_[ra];
  const std::uint32_t ub = rack_unit_[rb];
  // Rack uplinks to a pod switch are below the unit level; those to the spine are inside it.
  if (rack_pod_[ra] != kNoPod) bw = std::min(bw, rack_uplink_gbps_[ra]);
  if (rack_pod_[rb] != kNoPod) bw = std::min(bw, rack_uplink_gbps_[rb]);
  if (ua == ub) return bw;
  return std::min(bw, static_cast<double>(unit_bottleneck_gbps_[unit_index(ua, ub)]));
}

LinkLevel Topology::level(NodeIndex a, NodeIndex b) const {
  if (a == b) return LinkLevel::kNvlink;
  const std::uint32_t ra = node_rack_[a];
  const std::uint32_t rb = node_rack_[b];
  if (ra == rb) return LinkLevel::kIntraRack;
  if (rack_pod_[ra] == rack_pod_[rb]) return LinkLevel::kCrossRack;  // same pod, or both none
  return LinkLevel::kCrossPod;
}

LinkLevel Topology::placement_level(const Cluster& cluster, const Placement& placement) const {
  SCHEDLAB_ASSERT(!placement.empty(), "a placement holds GPUs");
  if (placement.size() == 1) {
    const NodeAllocation& a = placement.front();
    const int domain_gpus = cluster.groups()[cluster.node(a.node).group].nvlink_domain_gpus;
    const int first = std::countr_zero(a.gpus);
    const int last = 63 - std::countl_zero(a.gpus);
    return first / domain_gpus == last / domain_gpus ? LinkLevel::kNvlink : LinkLevel::kIntraNode;
  }
  LinkLevel worst = LinkLevel::kIntraRack;
  const NodeIndex first = placement.front().node;
  for (std::size_t i = 1; i < placement.size(); ++i)
    worst = std::max(worst, level(first, placement[i].node));
  return worst;
}

}  // namespace schedlab
