// Observers watch a run without changing it: metrics, invariant checks, logs. The interface
// sits in the cluster layer, below the engine that calls it and the metrics and models that
// implement it (docs/design.md).
//
// Contract: state is piecewise constant between instants. on_advance(from, to) is called with
// the state that held over [from, to) before the events at `to` are applied; on_job is called
// after each job transition is applied; on_end once, after the last event.
#pragma once

#include <cstddef>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

struct RunOptions;
class TenantTable;  // tenants.hpp
class TenantUsage;  // tenant_usage.hpp

// The whole state of a run, for observers (metrics, invariant checks). Unlike SchedContext it
// shows the trace itself, true durations and remaining work included.
// GPU sharing at this moment, in a run with --gpu-sharing (docs/gpu-sharing.md). GPUs fully
// idle are Cluster::free_gpus().
struct SharingSnapshot {
  std::int64_t allocated_gpu_milli = 0;   // milli held, summed over GPUs (1000 per whole GPU)
  std::int64_t partly_used_gpus = 0;      // GPUs with some, not all, of their milli held
  double fragmentation_milli = 0.0;       // F(M) of Weng et al. summed over the nodes that are on
  std::int64_t mig_reconfigurations = 0;  // MIG layout changes so far (one per GPU and change)
};

class RunView {
 public:
  virtual ~RunView() = default;
  virtual TimeMs now() const = 0;
  virtual const Cluster& cluster() const = 0;
  virtual const Trace& trace() const = 0;
  virtual const JobState& state(JobIndex job) const = 0;
  virtual const RunOptions& options() const = 0;
  // GPU type a job is constrained to (kAnyGpuType when unconstrained).
  virtual GpuTypeIndex job_gpu_type(JobIndex job) const = 0;
  // Running jobs; order is deterministic but unspecified.
  virtual const std::vector<JobIndex>& running() const = 0;
  virtual std::size_t queued_jobs() const = 0;
  virtual std::int64_t queued_gpus() const = 0;
  // The run's tenants and what each tenant's jobs hold (the same as SchedContext's).
  virtual const TenantTable& tenants() const = 0;
  virtual const TenantUsage& tenant_usage() const = 0;
  // Null unless the run shares GPUs.
  virtual const SharingSnapshot* sharing() const { return nullptr; }
  // Throws InvariantError unless the sharing bookkeeping is consistent (no GPU above 1000 milli,
  // no node's CPU or memory above capacity, idle GPUs as the cluster has them). No-op without.
  virtual void check_sharing_invariants() const {}

  const JobSpec& spec(JobIndex job) const { return trace().jobs[job]; }
};

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
  virtual void on_begin(const RunView& /*ctx*/) {}
  virtual void on_advance(const RunView& /*ctx*/, TimeMs /*from_ms*/, TimeMs /*to_ms*/) {}
  virtual void on_job(const RunView& /*ctx*/, JobIndex /*job*/, JobTransition /*what*/) {}
  // A node changed NodeState (failure, repair, power off, boot); `from` is its previous state.
  virtual void on_node(const RunView& /*ctx*/, NodeIndex /*node*/, NodeState /*from*/) {}
  virtual void on_end(const RunView& /*ctx*/) {}
};

}  // namespace schedlab
