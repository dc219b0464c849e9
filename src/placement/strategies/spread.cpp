// Spread placement.
//
// Rule: a job that fits on one node of its type goes onto the node with the most free GPUs
// (ties: lowest node index), taking that node's lowest-numbered free GPUs. A job larger than
// every eligible node takes nodes in order of most free GPUs first (ties: lowest node index),
// all of each node's free GPUs, the last node only as many as are still needed.
#include <algorithm>

#include "schedlab/placement_strategy.hpp"

namespace schedlab {
namespace {

class SpreadPlacement final : public PlacementStrategy {
 public:
  const char* name() const override { return "spread"; }

  std::optional<Placement> place(const Cluster& cluster, GpuTypeIndex type,
                                 int gpus) const override {
    if (gpus < 1 || cluster.free_gpus_of(type) < gpus) return std::nullopt;
    const int largest = cluster.max_node_gpus(type);
    if (gpus <= largest) {
      // Groups are in node-index order, so the first hit at the highest free count is the
      // lowest-index node among the emptiest ones.
      for (int k = largest; k >= gpus; --k) {
        for (const auto& group : cluster.groups()) {
          if (!Cluster::type_matches(type, group.type) || group.gpus_per_node < k) continue;
          const std::uint32_t local = group.nodes_by_free[static_cast<std::size_t>(k)].first();
          if (local == IndexSet::npos) continue;
          const NodeIndex node = group.first_node + local;
          return Placement{
              {node, placement_kit::lowest_free_bits(cluster.node(node).free_mask, gpus)}};
        }
      }
      return std::nullopt;
    }
    Placement placement;
    int remaining = gpus;
    for (int k = largest; k >= 1 && remaining > 0; --k) {
      for (const auto& group : cluster.groups()) {
        if (!Cluster::type_matches(type, group.type) || group.gpus_per_node < k) continue;
        const IndexSet& bucket = group.nodes_by_free[static_cast<std::size_t>(k)];
        for (std::uint32_t local = bucket.first(); local != IndexSet::npos && remaining > 0;
             local = bucket.next(local + 1)) {
          const NodeIndex node = group.first_node + local;
          const int take = std::min(k, remaining);
          placement.push_back(
              {node, placement_kit::lowest_free_bits(cluster.node(node).free_mask, take)});
          remaining -= take;
        }
        if (remaining == 0) break;
      }
    }
    if (remaining > 0) return std::nullopt;
    std::sort(placement.begin(), placement.end(),
              [](const NodeAllocation& a, const NodeAllocation& b) { return a.node < b.node; });
    return placement;
  }
};

}  // namespace

SCHEDLAB_REGISTER_PLACEMENT(PlacementInfo{
    "spread",
    "single node with the most free GPUs (ties: lowest index); larger jobs take the nodes "
    "with the most free GPUs first",
    [] { return std::make_unique<SpreadPlacement>(); }})

}  // namespace schedlab
