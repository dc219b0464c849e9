// Building blocks for policies that look ahead or preempt: a private copy of the cluster for
// what-if placement, the cost of preempting a running job, victim selection, parameter parsing,
// and a read-only view of a policy's reservations (for tests and tools).
//
// Every helper is deterministic: results depend only on the simulation state and the
// arguments, never on addresses or unordered containers.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/policy.hpp"

namespace schedlab {

// A policy-owned copy of the cluster's free state, kept equal to the engine's by the policy's
// hooks, so that "what if these jobs had ended" can be asked by releasing GPUs in the copy and
// calling the placement strategy on it. The copy is taken at the first schedule() call.
//
// Contract: call begin() at the top of every schedule() (it also brings node states up to
// date); track_start() after every start the policy makes; track_stop() from
// on_finish/on_requeue and after every preempt() it makes.
// What-if changes to scratch() must be undone before schedule() returns.
class ClusterMirror {
 public:
  void begin(const SchedContext& ctx);
  void track_start(const SchedContext& ctx, JobIndex job);
  // No-op for a job the mirror does not hold (e.g. its stop was already tracked).
  void track_stop(const SchedContext& ctx, JobIndex job);
  bool holds(JobIndex job) const { return job < held_.size() && held_[job] != 0; }
  Cluster& scratch() { return *cluster_; }
  const Cluster& scratch() const { return *cluster_; }

 private:
  std::optional<Cluster> cluster_;
  std::vector<std::uint8_t> held_;  // [job] = 1 while the mirror holds its placement
};

// Seconds and counts of the run's effective per-job settings.
TimeMs checkpoint_interval_ms(const SchedContext& ctx, JobIndex job);
TimeMs restart_overhead_ms(const SchedContext& ctx, JobIndex job);

// Work the running `job` has done by now, in reference milliseconds, as the engine counts it.
TimeMs work_done_ms(const SchedContext& ctx, JobIndex job);

// What preempting the running `job` now would cost, in GPU-milliseconds: the work since its
// last checkpoint (none with a zero interval, where one is taken at preemption) plus the
// restart overhead its next start pays, both times its GPU count.
std::int64_t preemption_cost_gpu_ms(const SchedContext& ctx, JobIndex job);

// The earliest time at which preempting the running `job` keeps, from its current attempt, at
// least as much work as the restart overhead the preemption costs (and at least 1 ms): past the
// attempt's own overhead, the work done must reach max(restart overhead, 1 ms) and, with a
// checkpoint interval, the next checkpoint at or after that. A policy that never preempts
// earlier moves every preempted job forward by at least its overhead per attempt, so repeated
// preemption cannot livelock.
TimeMs progress_guard_ms(const SchedContext& ctx, JobIndex job);

// Chooses running jobs to preempt so that `job` (queued) can be placed.
//
// `candidates` must be running and preemptible (the caller applies its own eligibility rules:
// priorities, protection windows). Returns the victims, sorted by job index, or nullopt when
// preempting every candidate would still not make room.
// - A job that fits on one node: for every node of its type, the cheapest set of candidates
//   holding GPUs there that frees enough GPUs on it (exact, by a covering knapsack over the
//   node's candidates); the node with the least total cost wins, then fewer victims, then the
//   lowest node index.
// - A larger job: candidates are added cheapest per GPU first (ties: job index) until the
//   placement strategy finds room in the what-if state, then each victim is dropped again,
//   most expensive first, if room remains without it.
// The mirror's scratch state is restored before returning.
std::optional<std::vector<JobIndex>> choose_victims(const SchedContext& ctx, ClusterMirror& mirror,
                                                    JobIndex job,
                                                    const std::vector<JobIndex>& candidates);

// Within one schedule() pass over jobs whose chances only shrink as the pass goes on (no GPU
// is released to later jobs, victims only become fewer), the smallest GPU count per type that
// already found no room: a later job needing at least that many GPUs of that type, or of any
// type after an untyped failure, cannot find room either. On a cluster whose nodes differ in
// size that holds only for failures of jobs no larger than its smallest node (a larger job may
// take whole small nodes where a smaller one found no node with room), so only those count.
class FailedSizes {
 public:
  FailedSizes() = default;  // nodes of one size
  explicit FailedSizes(const Cluster& cluster);
  void add(GpuTypeIndex type, int gpus);
  bool rules_out(GpuTypeIndex type, int gpus) const;
  // After a preemption: the victims may free more GPUs than the job takes.
  void clear() { smallest_.clear(); }

 private:
  std::vector<std::pair<GpuTypeIndex, int>> smallest_;        // few entries: one per type seen
  int counted_up_to_gpus_ = std::numeric_limits<int>::max();  // larger failures are not kept
};

// Parameter helpers: each throws ConfigError "--param key=value: policy 'P' expects ...".
// Seconds (decimal) as milliseconds, >= 0.
TimeMs param_seconds_ms(const PolicyParams& params, const std::string& policy,
                        const std::string& key, TimeMs fallback_ms);
// A comma-separated, strictly ascending list of positive numbers.
std::vector<double> param_ascending_list(const PolicyParams& params, const std::string& policy,
                                         const std::string& key, const std::string& fallback);
[[noreturn]] void param_error(const std::string& policy, const std::string& key,
                              const std::string& value, const std::string& expected);

// Implemented by policies that hold reservations (backfilling): the reservations in force
// after the latest schedule() call, as (job, start time) pairs sorted by job index. A queued
// job listed here is promised to start no later than that time, as long as running jobs end
// by their walltimes.
class ReservationSource {
 public:
  virtual ~ReservationSource() = default;
  virtual std::vector<std::pair<JobIndex, TimeMs>> reservations() const = 0;
};

}  // namespace schedlab
