#include "power_policy.hpp"

#include <algorithm>

namespace schedlab {

void QueueDemandPowerPolicy::wake_for_queue(PowerControl& control) {
  const Cluster& cluster = control.cluster();
  if (cluster.nodes_in_state(NodeState::kOff) == 0) return;
  const std::vector<std::int64_t>& queued = control.queued_gpus_by_type();
  const std::size_t types = cluster.gpu_types().size();
  supply_.assign(types, 0);
  for (const auto& g : cluster.groups())
    supply_[g.type] +=
        static_cast<std::int64_t>(g.in_state[static_cast<int>(NodeState::kBooting)]) *
        g.gpus_per_node;
  std::int64_t spare = 0;
  for (GpuTypeIndex t = 0; t < types; ++t) {
    supply_[t] += cluster.free_gpus_of(t);
    while (queued[t] > supply_[t]) {
      const auto node = cluster.lowest_off_node(t);
      if (!node) break;
      control.boot(*node);
      supply_[t] += cluster.node(*node).gpus;
    }
    spare += std::max<std::int64_t>(0, supply_[t] - queued[t]);
  }
  while (queued.back() > spare) {
    const auto node = cluster.lowest_off_node(kAnyGpuType);
    if (!node) break;
    control.boot(*node);
    spare += cluster.node(*node).gpus;
  }
}

bool QueueDemandPowerPolicy::may_power_off(const PowerControl& control, NodeIndex node) {
  const std::vector<std::int64_t>& queued = control.queued_gpus_by_type();
  return queued[control.cluster().node(node).type] + queued.back() <= 0;
}

std::unique_ptr<PowerPolicy> make_default_power_policy() {
  return std::make_unique<QueueDemandPowerPolicy>();
}

}  // namespace schedlab
