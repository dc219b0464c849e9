// Power states as a cluster model (--power-off-idle, --boot-time; docs/cluster.md): a node idle
// for --power-off-idle turns off if its power policy allows; an off node boots for --boot-time
// when the power policy or the scheduling policy (Decisions::wake_node) wakes it.
#pragma once

#include <memory>
#include <vector>

#include "cluster_model.hpp"
#include "power_policy.hpp"

namespace schedlab {

class PowerStates final : public ClusterModel, private PowerControl {
 public:
  PowerStates(ModelHost& host, const Cluster& cluster, std::unique_ptr<PowerPolicy> policy);

  void on_run_start() override;
  double on_job_start(JobIndex job, const Placement& placement) override;
  void on_job_stop(JobIndex job, const Placement& placement) override;
  void on_job_queued(JobIndex job) override;
  NodeEventOutcome on_node_event(const Event& event) override;
  void on_node_state(NodeIndex node, NodeState from) override;
  void on_wake_request(NodeIndex node) override;
  void after_policy() override;

 private:
  // PowerControl
  const Cluster& cluster() const override { return host_.view().cluster(); }
  const std::vector<std::int64_t>& queued_gpus_by_type() const override {
    return queued_gpus_by_type_;
  }
  void boot(NodeIndex node) override;

  // Queue-demand slot of a queued job: its GPU type, or the last slot for untyped jobs.
  std::size_t queue_type_slot(JobIndex job) const;
  void mark_idle(NodeIndex node);
  void push_idle_timer(NodeIndex node, TimeMs at_ms);

  ModelHost& host_;
  std::unique_ptr<PowerPolicy> policy_;
  TimeMs power_off_idle_ms_ = 0;
  TimeMs boot_time_ms_ = 0;
  std::vector<std::uint32_t> node_gen_;            // per node, see models/node_event.hpp
  std::vector<std::int64_t> queued_gpus_by_type_;  // per GPU type; last = untyped jobs
  std::vector<TimeMs> idle_since_ms_;              // per node: on and idle since; kUnsetMs if not
  // Per node: its pending power-off timer or kNever. A node has at most one pending; when it
  // fires early because the node was busy in between, it is pushed again to idle_since +
  // --power-off-idle.
  std::vector<TimeMs> idle_timer_ms_;
};

}  // namespace schedlab
