#include <algorithm>
#include <bit>

#include "schedlab/placement_strategy.hpp"

namespace schedlab::placement_kit {

GpuMask lowest_free_bits(GpuMask free_mask, int count) {
  GpuMask chosen = 0;
  for (int i = 0; i < count && free_mask != 0; ++i) {
    const GpuMask lowest = free_mask & (~free_mask + 1);
    chosen |= lowest;
    free_mask &= free_mask - 1;
  }
  return chosen;
}

std::optional<NodeIndex> best_fit_node(const Cluster& cluster, GpuTypeIndex type, int need,
                                       const std::vector<NodeIndex>& excluded) {
  int best_free = kMaxGpusPerNode + 1;
  std::optional<NodeIndex> best;
  for (const auto& group : cluster.groups()) {
    if (!Cluster::type_matches(type, group.type) || group.gpus_per_node < need) continue;
    for (int k = std::max(need, 1); k <= group.gpus_per_node && k <= best_free; ++k) {
      const IndexSet& bucket = group.nodes_by_free[static_cast<std::size_t>(k)];
      std::uint32_t local = bucket.first();
      while (local != IndexSet::npos &&
             std::binary_search(excluded.begin(), excluded.end(), group.first_node + local))
        local = bucket.next(local + 1);
      if (local == IndexSet::npos) continue;
      const NodeIndex node = group.first_node + local;
      if (k < best_free || (k == best_free && best && node < *best)) {
        best_free = k;
        best = node;
      }
      break;
    }
  }
  return best;
}

}  // namespace schedlab::placement_kit
