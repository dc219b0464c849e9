#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/placement_strategy.hpp"

namespace schedlab {

const std::vector<PlacementInfo>& placement_strategies() {
  return Registry<PlacementInfo>::instance().entries();
}

std::unique_ptr<PlacementStrategy> make_placement(const std::string& name) {
  if (const PlacementInfo* info = Registry<PlacementInfo>::instance().find(name))
    return info->make();
  throw ConfigError(fmt::format("--placement: unknown strategy '{}' (known: {})", name,
                                Registry<PlacementInfo>::instance().names()));
}

}  // namespace schedlab
