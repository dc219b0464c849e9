// The power policy of the power model (--power-off-idle, docs/cluster.md): which off nodes to
// wake after each policy call, and whether an idle node whose power-off timer expired may turn
// off. The power model owns the node states, timers and boots; the policy only decides.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "schedlab/cluster.hpp"

namespace schedlab {

// What a power policy sees and may do.
class PowerControl {
 public:
  virtual const Cluster& cluster() const = 0;
  // GPUs of queued jobs per GPU type; the last entry counts untyped jobs.
  virtual const std::vector<std::int64_t>& queued_gpus_by_type() const = 0;
  // Powers on an off node (it boots for --boot-time); no-op for a node that is not off.
  virtual void boot(NodeIndex node) = 0;

 protected:
  ~PowerControl() = default;
};

class PowerPolicy {
 public:
  virtual ~PowerPolicy() = default;
  // After each policy call while jobs are queued: boot the off nodes the queue needs.
  virtual void wake_for_queue(PowerControl& control) = 0;
  // An on node idle for --power-off-idle: whether it may turn off now (else it stays on and is
  // asked again --power-off-idle later).
  virtual bool may_power_off(const PowerControl& control, NodeIndex node) = 0;
};

// The default rule: per GPU type, wake off nodes (lowest index first) while the GPUs of queued
// jobs constrained to that type exceed its free plus booting GPUs; then, for unconstrained jobs,
// while their GPUs exceed the free and booting GPUs left over by typed demand, wake off nodes of
// any type. An idle node stays on while a queued job could use it (one of its type or untyped).
class QueueDemandPowerPolicy final : public PowerPolicy {
 public:
  void wake_for_queue(PowerControl& control) override;
  bool may_power_off(const PowerControl& control, NodeIndex node) override;

 private:
  std::vector<std::int64_t> supply_;  // per type: free + booting GPUs
};

std::unique_ptr<PowerPolicy> make_default_power_policy();

}  // namespace schedlab
