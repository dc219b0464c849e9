#include "schedlab/power_model.hpp"

namespace schedlab {

PowerBreakdown cluster_power(const Cluster& cluster, bool node_power) {
  PowerBreakdown p;
  const auto& types = cluster.gpu_types();
  for (GpuTypeIndex t = 0; t < types.size(); ++t) {
    if (cluster.total_gpus_of(t) == 0) continue;
    p.gpu_busy_w += static_cast<double>(cluster.busy_gpus_of_type(t)) * types[t].busy_power_w;
    p.gpu_idle_w += static_cast<double>(cluster.free_gpus_of(t)) * types[t].idle_power_w;
  }
  for (const auto& g : cluster.groups()) {
    const auto on = static_cast<double>(g.in_state[static_cast<int>(NodeState::kOn)]);
    const auto off = static_cast<double>(g.in_state[static_cast<int>(NodeState::kOff)] +
                                         g.in_state[static_cast<int>(NodeState::kDown)]);
    const auto booting = static_cast<double>(g.in_state[static_cast<int>(NodeState::kBooting)]);
    const double idle_gpus_w = g.gpus_per_node * types[g.type].idle_power_w;
    if (node_power) {
      p.node_base_w += on * g.base_power_w;
      p.off_w += off * g.off_power_w;
      p.boot_w += booting * (g.base_power_w + idle_gpus_w);
    } else {
      p.boot_w += booting * idle_gpus_w;
    }
  }
  return p;
}

double effective_pue(const RunOptions& options, const Cluster& cluster) {
  return options.pue > 0 ? options.pue : cluster.spec_pue();
}

bool cluster_models_active(const RunOptions& options, const Cluster& cluster) {
  return options.cluster_models_on() || cluster.spec_pue() != 1.0;
}

}  // namespace schedlab
