// The speed model as a cluster model (--speed-model, docs/cluster.md): each attempt progresses
// at the rate of its placement, fixed when it starts.
#pragma once

#include "cluster_model.hpp"
#include "schedlab/speed_model.hpp"

namespace schedlab {

class PlacementSpeed final : public ClusterModel {
 public:
  PlacementSpeed(const ModelHost& host, const Trace& trace, const Cluster& cluster,
                 SpeedModel model);

  // The attempt's slowdown on its placement (SpeedModelEvaluator::slowdown).
  double on_job_start(JobIndex job, const Placement& placement) override;

 private:
  const ModelHost& host_;
  SpeedModelEvaluator evaluator_;
};

}  // namespace schedlab
