// Observers watch a run without changing it: metrics, invariant checks, logs.
//
// Contract: state is piecewise constant between instants. on_advance(from, to) is called with
// the state that held over [from, to) before the events at `to` are applied; on_job is called
// after each job transition is applied; on_end once, after the last event.
#pragma once

#include "schedlab/policy.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

enum class JobTransition : std::uint8_t {
  kSubmitted,  // entered the queue
  kRejected,   // no placement could ever satisfy it
  kStarted,    // began an attempt (first start or restart)
  kPreempted,  // interrupted by the policy, back in the queue
  kCompleted,  // ran its whole duration
  kWalltimeReached,
  kFailed,  // killed by a node failure, back in the queue (cluster failure model)
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_begin(const SchedContext& /*ctx*/) {}
  virtual void on_advance(const SchedContext& /*ctx*/, TimeMs /*from_ms*/, TimeMs /*to_ms*/) {}
  virtual void on_job(const SchedContext& /*ctx*/, JobIndex /*job*/, JobTransition /*what*/) {}
  // A node changed NodeState (failure, repair, power off, boot); `from` is its previous state.
  virtual void on_node(const SchedContext& /*ctx*/, NodeIndex /*node*/, NodeState /*from*/) {}
  virtual void on_end(const SchedContext& /*ctx*/) {}
};

}  // namespace schedlab
