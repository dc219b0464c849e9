#include "power_states.hpp"

#include "node_event.hpp"
#include "schedlab/error.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab {

PowerStates::PowerStates(ModelHost& host, const Cluster& cluster,
                         std::unique_ptr<PowerPolicy> policy)
    : host_(host),
      policy_(std::move(policy)),
      power_off_idle_ms_(host.view().options().power_off_idle_ms),
      boot_time_ms_(host.view().options().boot_time_ms) {
  node_gen_.assign(cluster.node_count(), 0);
  queued_gpus_by_type_.assign(cluster.gpu_types().size() + 1, 0);
  idle_since_ms_.assign(cluster.node_count(), kUnsetMs);
  idle_timer_ms_.assign(cluster.node_count(), kNever);
}

void PowerStates::on_run_start() {
  for (NodeIndex n = 0; n < cluster().node_count(); ++n) mark_idle(n);
}

std::size_t PowerStates::queue_type_slot(JobIndex job) const {
  const GpuTypeIndex type = host_.view().job_gpu_type(job);
  SCHEDLAB_ASSERT(type == kAnyGpuType || type < cluster().gpu_types().size(),
                  "queued jobs have a known type");
  return type == kAnyGpuType ? cluster().gpu_types().size() : type;
}

// The job leaves the queue; its nodes are no longer idle.
double PowerStates::on_job_start(JobIndex job, const Placement& placement) {
  for (const auto& a : placement) idle_since_ms_[a.node] = kUnsetMs;
  queued_gpus_by_type_[queue_type_slot(job)] -= host_.view().spec(job).gpus;
  return 1.0;
}

void PowerStates::on_job_queued(JobIndex job) {
  queued_gpus_by_type_[queue_type_slot(job)] += host_.view().spec(job).gpus;
}

// Nodes the attempt leaves wholly free (and on) become idle.
void PowerStates::on_job_stop(JobIndex /*job*/, const Placement& placement) {
  const Cluster& c = cluster();
  for (const auto& a : placement) {
    const Node& n = c.node(a.node);
    if (n.free_mask == n.all_mask() && c.node_state(a.node) == NodeState::kOn) mark_idle(a.node);
  }
}

void PowerStates::boot(NodeIndex node) {
  if (cluster().node_state(node) != NodeState::kOff) return;
  host_.set_node_state(node, NodeState::kBooting);
  host_.push_node_event(host_.view().now() + boot_time_ms_, EventKind::kNodeUp, node,
                        node_stamp(node_gen_[node], NodeEventCause::kBoot));
}

void PowerStates::on_wake_request(NodeIndex node) {
  boot(node);
}

void PowerStates::after_policy() {
  if (host_.view().queued_jobs() > 0) policy_->wake_for_queue(*this);
}

NodeEventOutcome PowerStates::on_node_event(const Event& event) {
  const NodeEventCause cause = node_event_cause(event.attempt);
  if (cause != NodeEventCause::kIdle && cause != NodeEventCause::kBoot)
    return NodeEventOutcome::kNotMine;
  const NodeIndex node = event.subject;
  const NodeState state = cluster().node_state(node);
  const TimeMs now_ms = host_.view().now();
  if (cause == NodeEventCause::kIdle) {
    idle_timer_ms_[node] = kNever;
    const TimeMs since_ms = idle_since_ms_[node];
    if (state != NodeState::kOn || since_ms == kUnsetMs)
      return NodeEventOutcome::kIgnored;           // re-armed when idle again
    if (since_ms + power_off_idle_ms_ > now_ms) {  // busy in between: idle for less
      push_idle_timer(node, since_ms + power_off_idle_ms_);
      return NodeEventOutcome::kIgnored;
    }
    if (!policy_->may_power_off(*this, node)) {
      // Jobs that could use it are waiting: it stays on; look again later.
      push_idle_timer(node, now_ms + power_off_idle_ms_);
      return NodeEventOutcome::kApplied;
    }
    host_.set_node_state(node, NodeState::kOff);
    return NodeEventOutcome::kApplied;
  }
  if (!node_generation_matches(event.attempt, node_gen_[node]) || state != NodeState::kBooting)
    return NodeEventOutcome::kIgnored;
  host_.set_node_state(node, NodeState::kOn);
  return NodeEventOutcome::kApplied;
}

// Every state change makes the node's pending boot stale and ends its idle time; a node that
// comes on (booted or repaired) is idle from now.
void PowerStates::on_node_state(NodeIndex node, NodeState /*from*/) {
  ++node_gen_[node];
  idle_since_ms_[node] = kUnsetMs;
  if (cluster().node_state(node) == NodeState::kOn) mark_idle(node);
}

void PowerStates::mark_idle(NodeIndex node) {
  idle_since_ms_[node] = host_.view().now();
  if (idle_timer_ms_[node] == kNever)
    push_idle_timer(node, host_.view().now() + power_off_idle_ms_);
}

void PowerStates::push_idle_timer(NodeIndex node, TimeMs at_ms) {
  idle_timer_ms_[node] = at_ms;
  host_.push_node_event(at_ms, EventKind::kNodeDown, node, node_stamp(0, NodeEventCause::kIdle));
}

}  // namespace schedlab
