// Which GPUs a job holds: a list of (node, GPU mask) pairs.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "schedlab/types.hpp"

namespace schedlab {

struct NodeAllocation {
  NodeIndex node = 0;
  GpuMask gpus = 0;  // bits of the node's GPUs that the job holds (non-zero)
  int gpu_count() const { return std::popcount(gpus); }
  bool operator==(const NodeAllocation&) const = default;
};

// Node allocations sorted by node index, each node at most once.
using Placement = std::vector<NodeAllocation>;

inline int placement_gpu_count(const Placement& placement) {
  int total = 0;
  for (const auto& a : placement) total += a.gpu_count();
  return total;
}

}  // namespace schedlab
