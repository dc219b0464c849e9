// A plug-in placement strategy, for the tests of --plugin: a job that fits on one node goes onto
// the highest-index node of its type with enough free GPUs, on that node's lowest free GPUs;
// larger jobs are not placed.
#include <schedlab/placement_strategy.hpp>

namespace {

class LastFitPlacement final : public schedlab::PlacementStrategy {
 public:
  const char* name() const override { return "last-fit"; }

  std::optional<schedlab::Placement> place(const schedlab::Cluster& cluster,
                                           schedlab::GpuTypeIndex type, int gpus) const override {
    const auto& nodes = cluster.nodes();
    for (std::size_t i = nodes.size(); i-- > 0;) {
      const schedlab::Node& node = nodes[i];
      if (!schedlab::Cluster::type_matches(type, node.type) || node.free_gpus() < gpus) continue;
      return schedlab::Placement{{static_cast<schedlab::NodeIndex>(i),
                                  schedlab::placement_kit::lowest_free_bits(node.free_mask, gpus)}};
    }
    return std::nullopt;
  }
};

}  // namespace

SCHEDLAB_REGISTER_PLACEMENT(schedlab::PlacementInfo{
    "last-fit", "highest-index node that fits (a test plug-in)",
    [] { return std::make_unique<LastFitPlacement>(); }})
