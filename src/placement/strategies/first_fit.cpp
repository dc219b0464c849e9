// First-fit placement.
//
// Rule: a job that fits on one node of its type goes onto the lowest-index node with enough
// free GPUs, taking that node's lowest-numbered free GPUs. A job larger than every eligible
// node takes wholly free nodes in node-index order while the remainder is at least that node's
// size; any remainder then goes onto the lowest-index node not already taken that has enough
// free GPUs.
#include <algorithm>

#include "schedlab/placement_strategy.hpp"

namespace schedlab {
namespace {

// Lowest-index node of a matching type with at least `need` free GPUs, skipping `excluded`
// (sorted), or nullopt.
std::optional<NodeIndex> lowest_fitting_node(const Cluster& cluster, GpuTypeIndex type, int need,
                                             const std::vector<NodeIndex>& excluded) {
  for (const auto& group : cluster.groups()) {
    if (!Cluster::type_matches(type, group.type) || group.gpus_per_node < need) continue;
    std::uint32_t best = IndexSet::npos;
    for (int k = need; k <= group.gpus_per_node; ++k) {
      const IndexSet& bucket = group.nodes_by_free[static_cast<std::size_t>(k)];
      std::uint32_t local = bucket.first();
      while (local != IndexSet::npos && local < best &&
             std::binary_search(excluded.begin(), excluded.end(), group.first_node + local))
        local = bucket.next(local + 1);
      best = std::min(best, local);
    }
    // Groups are in node-index order: the first group with a fitting node holds the lowest.
    if (best != IndexSet::npos) return group.first_node + best;
  }
  return std::nullopt;
}

class FirstFitPlacement final : public PlacementStrategy {
 public:
  const char* name() const override { return "first-fit"; }

  std::optional<Placement> place(const Cluster& cluster, GpuTypeIndex type,
                                 int gpus) const override {
    if (gpus < 1 || cluster.free_gpus_of(type) < gpus) return std::nullopt;
    if (gpus <= cluster.max_node_gpus(type)) {
      const auto node = lowest_fitting_node(cluster, type, gpus, {});
      if (!node) return std::nullopt;
      return Placement{
          {*node, placement_kit::lowest_free_bits(cluster.node(*node).free_mask, gpus)}};
    }
    Placement placement;
    std::vector<NodeIndex> taken;
    int remaining = gpus;
    for (const auto& group : cluster.groups()) {
      if (!Cluster::type_matches(type, group.type)) continue;
      const int size = group.gpus_per_node;
      const IndexSet& whole = group.nodes_by_free[static_cast<std::size_t>(size)];
      for (std::uint32_t local = whole.first(); local != IndexSet::npos && remaining >= size;
           local = whole.next(local + 1)) {
        const NodeIndex node = group.first_node + local;
        placement.push_back({node, cluster.node(node).all_mask()});
        taken.push_back(node);
        remaining -= size;
      }
    }
    if (remaining > 0) {
      // `taken` is ascending: groups and their members were visited in node-index order.
      const auto node = lowest_fitting_node(cluster, type, remaining, taken);
      if (!node) return std::nullopt;
      placement.push_back(
          {*node, placement_kit::lowest_free_bits(cluster.node(*node).free_mask, remaining)});
    }
    std::sort(placement.begin(), placement.end(),
              [](const NodeAllocation& a, const NodeAllocation& b) { return a.node < b.node; });
    return placement;
  }
};

}  // namespace

SCHEDLAB_REGISTER_PLACEMENT(PlacementInfo{
    "first-fit",
    "lowest-index node that fits; larger jobs take whole free nodes in index order plus the "
    "lowest-index node that fits the remainder",
    [] { return std::make_unique<FirstFitPlacement>(); }})

}  // namespace schedlab
