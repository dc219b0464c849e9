// Placement strategies: where a job of N GPUs of a type goes, given the free GPUs now.
// Each strategy is a pure function of the cluster's free state: same state, same answer.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/placement.hpp"
#include "schedlab/registry.hpp"

namespace schedlab {

class PlacementStrategy {
 public:
  virtual ~PlacementStrategy() = default;
  virtual const char* name() const = 0;
  // A placement of exactly `gpus` free GPUs of `type` (kAnyGpuType = any), or nullopt.
  virtual std::optional<Placement> place(const Cluster& cluster, GpuTypeIndex type,
                                         int gpus) const = 0;
};

struct PlacementInfo {
  std::string name;
  std::string summary;
  std::function<std::unique_ptr<PlacementStrategy>()> make;
};

// Registered strategies, sorted by name (built-in ones: one file each in
// src/placement/strategies/).
const std::vector<PlacementInfo>& placement_strategies();
// Throws ConfigError listing the known names.
std::unique_ptr<PlacementStrategy> make_placement(const std::string& name);

// Shared building blocks for strategies.
namespace placement_kit {
// Lowest free GPU bits of a node, `count` of them.
GpuMask lowest_free_bits(GpuMask free_mask, int count);
// The node with the fewest free GPUs >= need (ties: lowest index), skipping `excluded`
// (sorted), or nullopt.
std::optional<NodeIndex> best_fit_node(const Cluster& cluster, GpuTypeIndex type, int need,
                                       const std::vector<NodeIndex>& excluded = {});
}  // namespace placement_kit

}  // namespace schedlab

// Registers a placement strategy at static-initialization time:
// SCHEDLAB_REGISTER_PLACEMENT(PlacementInfo{name, summary, factory});
#define SCHEDLAB_REGISTER_PLACEMENT(...) SCHEDLAB_REGISTER(::schedlab::PlacementInfo, __VA_ARGS__)
