#include "node_failures.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "node_event.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"

namespace schedlab {

NodeFailures::NodeFailures(ModelHost& host, const Trace& trace, const Cluster& cluster,
                           const RunOptions& options)
    : host_(host), options_(options) {
  gpu_owner_.assign(static_cast<std::size_t>(cluster.total_gpus()), 0);
  fruitless_failures_.assign(trace.jobs.size(), 0);
  rng_ = Rng(options.failure_seed.value_or(options.seed));
  if (options.failure_rate_per_1000_node_days > 0)
    mean_ms_ =
        mean_ms_between_failures(cluster.node_count(), options.failure_rate_per_1000_node_days);
  node_gen_.assign(cluster.node_count(), 0);
}

void NodeFailures::on_run_start() {
  if (mean_ms_ > 0) schedule_next_failure();
  if (options_.failure_trace) push_next_trace_failures();
}

// Records the GPUs' owner, so a failing node knows its jobs.
double NodeFailures::on_job_start(JobIndex job, const Placement& placement) {
  const Cluster& cluster = host_.view().cluster();
  for (const auto& a : placement) {
    const Node& n = cluster.node(a.node);
    for (GpuMask m = a.gpus; m != 0; m &= m - 1)
      gpu_owner_[n.first_gpu_id + static_cast<std::uint64_t>(std::countr_zero(m))] = job;
  }
  return 1.0;
}

bool NodeFailures::chain_idle() const {
  const RunView& view = host_.view();
  return view.running().empty() && !host_.arrivals_left() &&
         view.cluster().nodes_in_state(NodeState::kBooting) == 0;
}

void NodeFailures::schedule_next_failure() {
  constexpr double kMaxGapMs = 1e15;
  const RunView& view = host_.view();
  const double gap_ms = std::min(kMaxGapMs, rng_.exponential(mean_ms_));
  const auto node = static_cast<NodeIndex>(
      rng_.uniform_int(0, static_cast<std::int64_t>(view.cluster().node_count()) - 1));
  host_.push_node_event(view.now() + std::max<TimeMs>(1, std::llround(gap_ms)),
                        EventKind::kNodeDown, node, node_stamp(0, NodeEventCause::kFailure));
}

// Pushes the failure-trace rows of the next down time (rows before now start now); rows whose
// node is back before that time are skipped.
void NodeFailures::push_next_trace_failures() {
  const auto& rows = options_.failure_trace->rows;
  const TimeMs now_ms = host_.view().now();
  while (pending_trace_failures_ == 0 && next_trace_failure_ < rows.size()) {
    const TimeMs t = std::max(rows[next_trace_failure_].down_ms, now_ms);
    while (next_trace_failure_ < rows.size() &&
           std::max(rows[next_trace_failure_].down_ms, now_ms) == t) {
      if (rows[next_trace_failure_].up_ms > t) {
        host_.push_node_event(t, EventKind::kNodeDown,
                              static_cast<std::uint32_t>(next_trace_failure_),
                              node_stamp(0, NodeEventCause::kFailure));
        ++pending_trace_failures_;
      }
      ++next_trace_failure_;
    }
  }
}

NodeEventOutcome NodeFailures::on_node_event(const Event& event) {
  const NodeEventCause cause = node_event_cause(event.attempt);
  if (cause != NodeEventCause::kFailure && cause != NodeEventCause::kRepair)
    return NodeEventOutcome::kNotMine;
  const Cluster& cluster = host_.view().cluster();
  if (cause == NodeEventCause::kFailure) {
    if (options_.failure_trace) {
      const FailureTraceRow& row = options_.failure_trace->rows[event.subject];
      --pending_trace_failures_;
      fail_node(row.node, row.up_ms);
      push_next_trace_failures();
      return NodeEventOutcome::kApplied;
    }
    if (chain_idle()) {
      chain_paused_ = true;
      return NodeEventOutcome::kIgnored;
    }
    schedule_next_failure();
    if (cluster.node_state(event.subject) == NodeState::kDown)
      return NodeEventOutcome::kIgnored;  // already failed
    fail_node(event.subject, host_.view().now() + options_.repair_ms);
    return NodeEventOutcome::kApplied;
  }
  const NodeIndex node = event.subject;
  if (!node_generation_matches(event.attempt, node_gen_[node]) ||
      cluster.node_state(node) != NodeState::kDown)
    return NodeEventOutcome::kIgnored;
  host_.set_node_state(node, NodeState::kOn);
  return NodeEventOutcome::kApplied;
}

// Every state change makes the node's pending repair stale.
void NodeFailures::on_node_state(NodeIndex node, NodeState /*from*/) {
  ++node_gen_[node];
}

void NodeFailures::on_instant_end() {
  if (chain_paused_ && !chain_idle()) {
    chain_paused_ = false;
    schedule_next_failure();
  }
}

// A node fails now: its jobs are killed and requeued, and it is down until `up_ms`. A node
// already down (a failure-trace outage starting the instant the previous one ends, which is
// applied before that repair) stays down until `up_ms`: its pending repair becomes stale.
void NodeFailures::fail_node(NodeIndex node, TimeMs up_ms) {
  const Cluster& cluster = host_.view().cluster();
  if (cluster.node_state(node) == NodeState::kDown) {
    ++node_gen_[node];
    host_.push_node_event(up_ms, EventKind::kNodeUp, node,
                          node_stamp(node_gen_[node], NodeEventCause::kRepair));
    return;
  }
  if (cluster.node_state(node) == NodeState::kOn) {
    const Node& n = cluster.node(node);
    JobIndex victims[kMaxGpusPerNode];
    int count = 0;
    for (GpuMask held = n.all_mask() & ~n.free_mask; held != 0; held &= held - 1)
      victims[count++] =
          gpu_owner_[n.first_gpu_id + static_cast<std::uint64_t>(std::countr_zero(held))];
    std::sort(victims, victims + count);
    count = static_cast<int>(std::unique(victims, victims + count) - victims);
    for (int i = 0; i < count; ++i) fail_job(victims[i]);
  }
  host_.set_node_state(node, NodeState::kDown);
  host_.push_node_event(up_ms, EventKind::kNodeUp, node,
                        node_stamp(node_gen_[node], NodeEventCause::kRepair));
}

// A job whose attempts keep dying before its next checkpoint can never finish: the run would
// loop (and buffer metrics) forever. It stops with a message instead (exit 3).
void NodeFailures::fail_job(JobIndex job) {
  const FailedAttempt attempt = host_.fail_job(job);
  const JobSpec& spec = host_.view().spec(job);
  if (attempt.saved_ms > attempt.saved_before_ms || attempt.done_ms == spec.duration_ms) {
    fruitless_failures_[job] = 0;
    host_.note_progress();
  } else if (++fruitless_failures_[job] >= kMaxFruitlessFailures) {
    throw StuckError(fmt::format(
        "run cannot finish at t={} s: job '{}' failed {} times in a row without reaching a new "
        "checkpoint ({} s of its {} s saved); lower the failure rate or set a checkpoint "
        "interval shorter than the time between its failures",
        static_cast<double>(host_.view().now()) / kMsPerSecond, spec.id, kMaxFruitlessFailures,
        static_cast<double>(attempt.saved_ms) / kMsPerSecond,
        static_cast<double>(spec.duration_ms) / kMsPerSecond));
  }
}

}  // namespace schedlab
