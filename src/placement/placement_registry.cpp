#include <algorithm>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/placement_strategy.hpp"

namespace schedlab {

std::unique_ptr<PlacementStrategy> make_spread_placement();     // spread.cpp
std::unique_ptr<PlacementStrategy> make_first_fit_placement();  // first_fit.cpp
std::unique_ptr<PlacementStrategy> make_topology_placement();   // topology.cpp

const std::vector<PlacementInfo>& placement_strategies() {
  static const std::vector<PlacementInfo> strategies = [] {
    std::vector<PlacementInfo> list = {
        {"pack",
         "single node with the fewest free GPUs that fits (ties: lowest index); larger jobs take "
         "whole free nodes plus one best-fit node for the remainder",
         make_pack_placement},
        {"spread",
         "single node with the most free GPUs (ties: lowest index); larger jobs take the nodes "
         "with the most free GPUs first",
         make_spread_placement},
        {"first-fit",
         "lowest-index node that fits; larger jobs take whole free nodes in index order plus the "
         "lowest-index node that fits the remainder",
         make_first_fit_placement},
        {"topology", "fewest nodes, then fewest racks, then best fit (docs/cluster.md)",
         make_topology_placement},
    };
    std::sort(list.begin(), list.end(),
              [](const PlacementInfo& a, const PlacementInfo& b) { return a.name < b.name; });
    return list;
  }();
  return strategies;
}

std::unique_ptr<PlacementStrategy> make_placement(const std::string& name) {
  std::string known;
  for (const auto& info : placement_strategies()) {
    if (info.name == name) return info.make();
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw ConfigError(fmt::format("--placement: unknown strategy '{}' (known: {})", name, known));
}

}  // namespace schedlab
