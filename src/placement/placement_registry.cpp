#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/names.hpp"
#include "schedlab/placement_strategy.hpp"

namespace schedlab {

const std::vector<PlacementInfo>& placement_strategies() {
  return Registry<PlacementInfo>::instance().entries();
}

std::unique_ptr<PlacementStrategy> make_placement(const std::string& name) {
  if (const PlacementInfo* info = Registry<PlacementInfo>::instance().find_loose(name))
    return info->make();
  const auto& registry = Registry<PlacementInfo>::instance();
  throw ConfigError(fmt::format("--placement: unknown strategy '{}'{} (known: {})", name,
                                did_you_mean(name, registry.name_list()), registry.names()));
}

}  // namespace schedlab
