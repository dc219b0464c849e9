#include "schedlab/speed_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "schedlab/error.hpp"
#include "schedlab/network_topology.hpp"

namespace schedlab {

SpeedModelEvaluator::SpeedModelEvaluator(const Trace& trace, const Cluster& cluster,
                                         SpeedModel model)
    : gpu_on_(model == SpeedModel::kGpu || model == SpeedModel::kFull),
      comm_on_(model == SpeedModel::kComm || model == SpeedModel::kFull),
      type_count_(cluster.gpu_types().size()) {
  if (comm_on_) (void)cluster.topology();
  if (!gpu_on_) return;
  profile_speeds_.assign(trace.speed_profiles.size() * type_count_, 0.0);
  for (std::size_t p = 0; p < trace.speed_profiles.size(); ++p) {
    for (const auto& [name, speed] : trace.speed_profiles[p]) {
      const auto type = cluster.find_gpu_type(trace.strings.str(name));
      if (type) profile_speeds_[p * type_count_ + *type] = speed;
    }
  }
}

double SpeedModelEvaluator::gpu_speed(const Cluster& cluster, const JobSpec& spec,
                                      GpuTypeIndex type) const {
  if (!gpu_on_) return 1.0;
  if (spec.speed_profile != 0 && spec.speed_profile * type_count_ < profile_speeds_.size()) {
    const double own = profile_speeds_[spec.speed_profile * type_count_ + type];
    if (own > 0) return own;
  }
  return cluster.gpu_types()[type].speed;
}

double SpeedModelEvaluator::slowdown(const Cluster& cluster, const JobSpec& spec,
                                     const Placement& placement) const {
  double speed = 1.0;
  if (gpu_on_) {
    speed = std::numeric_limits<double>::infinity();
    GpuTypeIndex last_type = kAnyGpuType;
    for (const auto& a : placement) {
      const GpuTypeIndex type = cluster.node(a.node).type;
      if (type == last_type) continue;
      last_type = type;
      speed = std::min(speed, gpu_speed(cluster, spec, type));
    }
  }
  double factor = 1.0;
  if (comm_on_) {
    const LinkLevel level = cluster.topology().placement_level(cluster, placement);
    factor = cluster.comm_factors().factor[static_cast<int>(level)][static_cast<int>(spec.comm)];
  }
  const double result = factor / speed;
  SCHEDLAB_ASSERT(result > 0 && std::isfinite(result), "a slowdown is positive and finite");
  return result;
}

TimeMs work_time_ms(TimeMs remaining_ms, double slowdown) {
  if (slowdown == 1.0) return remaining_ms;
  // Capped far beyond any trace (about 31 million years) so times stay representable.
  constexpr double kCapMs = 1e18;
  return static_cast<TimeMs>(
      std::min(kCapMs, std::ceil(static_cast<double>(remaining_ms) * slowdown)));
}

TimeMs progress_at_slowdown(TimeMs elapsed_ms, TimeMs remaining_ms, double slowdown) {
  if (elapsed_ms >= work_time_ms(remaining_ms, slowdown)) return remaining_ms;
  if (elapsed_ms <= 0) return 0;
  const auto done = static_cast<TimeMs>(std::floor(static_cast<double>(elapsed_ms) / slowdown));
  return std::clamp<TimeMs>(done, 0, remaining_ms - 1);
}

}  // namespace schedlab
