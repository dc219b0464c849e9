// Cluster models beside the engine (docs/cluster.md): node failures, power states and
// placement-dependent speed. Each is a ClusterModel the engine calls at fixed points of its loop;
// a model acts on the run only through ModelHost. Every hook is called on each model in the order
// the models were added. With every model off the engine holds none and calls none of these
// hooks.
#pragma once

#include <cstdint>

#include "schedlab/cluster.hpp"
#include "schedlab/event_queue.hpp"
#include "schedlab/observer.hpp"

namespace schedlab {

// What a job's attempt killed by a node failure kept (reference ms of work).
struct FailedAttempt {
  TimeMs done_ms = 0;          // work done in all when it died
  TimeMs saved_before_ms = 0;  // work saved before this attempt
  TimeMs saved_ms = 0;         // work it keeps: its last checkpoint
};

// The engine's services to its cluster models.
class ModelHost {
 public:
  virtual const RunView& view() const = 0;
  // Jobs of the trace not yet submitted (pending arrival events included).
  virtual bool arrivals_left() const = 0;
  // Pushes a node event (kNodeDown or kNodeUp) into the engine's queue; it comes back through
  // ClusterModel::on_node_event. `stamp` is the model's own (models/node_event.hpp).
  virtual void push_node_event(TimeMs time_ms, EventKind kind, std::uint32_t subject,
                               std::uint32_t stamp) = 0;
  // Changes a node's state: the policy sees changes.nodes_changed, observers get on_node, every
  // model gets on_node_state.
  virtual void set_node_state(NodeIndex node, NodeState state) = 0;
  // Lifecycle: the running job's attempt dies with a node; it keeps its last periodic checkpoint
  // (with interval 0 the one of its last preemption, or none) and is queued again (transition
  // kFailed, policy on_requeue).
  virtual FailedAttempt fail_job(JobIndex job) = 0;
  // Something brought the run closer to its end (resets the no-progress bound).
  virtual void note_progress() = 0;

 protected:
  ~ModelHost() = default;
};

enum class NodeEventOutcome : std::uint8_t {
  kNotMine,  // another model's event
  kIgnored,  // stale, or changed nothing: not counted, no policy call for it
  kApplied,
};

class ClusterModel {
 public:
  virtual ~ClusterModel() = default;
  // Once, before the policy's on_begin: push the model's first events.
  virtual void on_run_start() {}
  // A job's attempt starts on `placement` (already allocated). Returns the slowdown the model
  // puts on the attempt's progress (1 = none); the engine multiplies every model's.
  virtual double on_job_start(JobIndex /*job*/, const Placement& /*placement*/) { return 1.0; }
  // A job's attempt ended (finish, preemption or failure); its GPUs are already released.
  virtual void on_job_stop(JobIndex /*job*/, const Placement& /*placement*/) {}
  // A job entered the queue (submit or requeue); it leaves it at on_job_start.
  virtual void on_job_queued(JobIndex /*job*/) {}
  // A node event the model may have pushed.
  virtual NodeEventOutcome on_node_event(const Event& /*event*/) {
    return NodeEventOutcome::kNotMine;
  }
  // A node's state changed (cluster already updated).
  virtual void on_node_state(NodeIndex /*node*/, NodeState /*from*/) {}
  // A policy asked to wake a node (Decisions::wake_node).
  virtual void on_wake_request(NodeIndex /*node*/) {}
  // After every instant's policy call (or the instant itself when nothing is queued): react to
  // the policy's decisions.
  virtual void after_policy() {}
  // After every model's after_policy: the instant's state is settled.
  virtual void on_instant_end() {}
};

}  // namespace schedlab
