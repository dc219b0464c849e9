// Pack placement (the default).
//
// Rule: a job that fits on one node of its type goes onto a single node, the one with the
// fewest free GPUs that still fits it (ties: lowest node index), taking that node's
// lowest-numbered free GPUs. A job larger than every eligible node takes whole free nodes,
// largest nodes first and lowest index among equals, while the remainder is at least a whole
// node; any remainder then goes onto one best-fit node as above.
#include <algorithm>

#include "schedlab/placement_strategy.hpp"

namespace schedlab {
namespace {

class PackPlacement final : public PlacementStrategy {
 public:
  const char* name() const override { return "pack"; }

  std::optional<Placement> place(const Cluster& cluster, GpuTypeIndex type,
                                 int gpus) const override {
    if (gpus < 1 || cluster.free_gpus_of(type) < gpus) return std::nullopt;
    if (gpus <= cluster.max_node_gpus(type)) {
      const auto node = placement_kit::best_fit_node(cluster, type, gpus);
      if (!node) return std::nullopt;
      return Placement{
          {*node, placement_kit::lowest_free_bits(cluster.node(*node).free_mask, gpus)}};
    }
    return place_multi_node(cluster, type, gpus);
  }

 private:
  static std::optional<Placement> place_multi_node(const Cluster& cluster, GpuTypeIndex type,
                                                   int gpus) {
    std::vector<const Cluster::Group*> order;
    for (const auto& group : cluster.groups())
      if (Cluster::type_matches(type, group.type)) order.push_back(&group);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
      if (a->gpus_per_node != b->gpus_per_node) return a->gpus_per_node > b->gpus_per_node;
      return a->first_node < b->first_node;
    });
    Placement placement;
    std::vector<NodeIndex> taken;
    int remaining = gpus;
    for (const auto* group : order) {
      const int size = group->gpus_per_node;
      const IndexSet& whole = group->nodes_by_free[static_cast<std::size_t>(size)];
      for (std::uint32_t local = whole.first(); local != IndexSet::npos && remaining >= size;
           local = whole.next(local + 1)) {
        const NodeIndex node = group->first_node + local;
        placement.push_back({node, cluster.node(node).all_mask()});
        taken.push_back(node);
        remaining -= size;
      }
    }
    if (remaining > 0) {
      std::sort(taken.begin(), taken.end());
      const auto node = placement_kit::best_fit_node(cluster, type, remaining, taken);
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
    "pack",
    "single node with the fewest free GPUs that fits (ties: lowest index); larger jobs take "
    "whole free nodes plus one best-fit node for the remainder",
    [] { return std::make_unique<PackPlacement>(); }})

}  // namespace schedlab
