#include "placement_speed.hpp"

namespace schedlab {

PlacementSpeed::PlacementSpeed(const ModelHost& host, const Trace& trace, const Cluster& cluster,
                               SpeedModel model)
    : host_(host), evaluator_(trace, cluster, model) {}

double PlacementSpeed::on_job_start(JobIndex job, const Placement& placement) {
  const RunView& view = host_.view();
  return evaluator_.slowdown(view.cluster(), view.spec(job), placement);
}

}  // namespace schedlab
