// Node failures as a cluster model (--failures, --failure-trace; docs/cluster.md): a failing
// node kills its jobs (ModelHost::fail_job) and is down until repaired. Generated failures form
// one Poisson chain over the cluster, paused while the cluster is drained and waiting; a failure
// trace is replayed one down time at a time.
#pragma once

#include <vector>

#include "cluster_model.hpp"
#include "schedlab/random.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab {

class NodeFailures final : public ClusterModel {
 public:
  NodeFailures(ModelHost& host, const Trace& trace, const Cluster& cluster,
               const RunOptions& options);

  void on_run_start() override;
  double on_job_start(JobIndex job, const Placement& placement) override;
  NodeEventOutcome on_node_event(const Event& event) override;
  void on_node_state(NodeIndex node, NodeState from) override;
  void on_instant_end() override;

 private:
  // No failures are generated while the cluster is drained and waiting (nothing runs, no
  // arrival is left, nothing boots): a run waiting for repairs then always ends.
  bool chain_idle() const;
  void schedule_next_failure();
  void push_next_trace_failures();
  void fail_node(NodeIndex node, TimeMs up_ms);
  void fail_job(JobIndex job);

  ModelHost& host_;
  const RunOptions& options_;
  Rng rng_{1};
  double mean_ms_ = 0;  // generated failures: mean gap, cluster-wide
  bool chain_paused_ = false;
  std::size_t next_trace_failure_ = 0;
  std::size_t pending_trace_failures_ = 0;
  // Failures of each job since its checkpoint last advanced.
  static constexpr std::uint32_t kMaxFruitlessFailures = 10'000;
  std::vector<std::uint32_t> fruitless_failures_;
  std::vector<std::uint32_t> node_gen_;  // per node, see models/node_event.hpp
  std::vector<JobIndex> gpu_owner_;      // per global GPU id: the job that holds it
};

}  // namespace schedlab
